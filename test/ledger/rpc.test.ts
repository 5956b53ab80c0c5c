// JSON-RPC behaviour a client relies on: simulation, refusals with the validator's error shapes,
// input validation, batches, blockhash expiry and the PubSub socket.
import {
  ComputeBudgetProgram,
  Connection,
  Keypair,
  LAMPORTS_PER_SOL,
  SendTransactionError,
  SystemProgram,
  Transaction
} from "@solana/web3.js"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startLedgerServer, type LedgerServer } from "../../src/ledger/server.js"
import { pickPort, rawRpc, tempDataDir } from "./helpers.js"

const SLOT_MS = 5 // 150 slots = 750 ms, so expiry is observable in a test
let server: LedgerServer
let connection: Connection
const payer = Keypair.generate()

function transferTx(lamports: number, blockhash: string, to = Keypair.generate().publicKey): Transaction {
  const tx = new Transaction({ feePayer: payer.publicKey, recentBlockhash: blockhash })
  tx.add(SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: to, lamports }))
  tx.sign(payer)
  return tx
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

// web3.js's sendTransaction reuses a blockhash for 30 s, longer than this fast-slot ledger keeps one
// valid (0.75 s); with the default 400 ms slots the window is 60 s. So sign with a fresh blockhash here.
async function signSendConfirm(tx: Transaction, on: Connection = connection): Promise<string> {
  const latest = await on.getLatestBlockhash()
  tx.feePayer = payer.publicKey
  tx.recentBlockhash = latest.blockhash
  tx.sign(payer)
  const signature = await on.sendRawTransaction(tx.serialize())
  await on.confirmTransaction({ signature, ...latest })
  return signature
}

beforeAll(async () => {
  server = await startLedgerServer({ port: await pickPort(), dataDir: tempDataDir(), slotMs: SLOT_MS })
  connection = new Connection(server.rpcUrl, { commitment: "confirmed", wsEndpoint: server.wsUrl })
  const signature = await connection.requestAirdrop(payer.publicKey, 10 * LAMPORTS_PER_SOL)
  await connection.confirmTransaction({ signature, ...(await connection.getLatestBlockhash()) })
})

afterAll(async () => {
  await server.close()
})

describe("transactions", () => {
  it("simulates a failing transaction: result with err and logs, nothing charged", async () => {
    const before = await connection.getBalance(payer.publicKey)
    const { blockhash } = await connection.getLatestBlockhash()
    const result = await connection.simulateTransaction(transferTx(100 * LAMPORTS_PER_SOL, blockhash), [payer])
    expect(result.value.err).toEqual({ InstructionError: [0, { Custom: 1 }] })
    expect(result.value.logs?.some((line) => line.includes("insufficient lamports"))).toBe(true)
    expect(await connection.getBalance(payer.publicKey)).toBe(before)
  })

  it("refuses a failing transaction at preflight with -32002 and the logs", async () => {
    const { blockhash } = await connection.getLatestBlockhash()
    const wire = transferTx(100 * LAMPORTS_PER_SOL, blockhash).serialize().toString("base64")
    const reply = await rawRpc(server.rpcUrl, { jsonrpc: "2.0", id: 1, method: "sendTransaction", params: [wire, { encoding: "base64" }] })
    expect(reply.error?.code).toBe(-32002)
    expect(reply.error?.message).toBe("Transaction simulation failed: Error processing Instruction 0: custom program error: 0x1")
    expect(reply.error?.data?.err).toEqual({ InstructionError: [0, { Custom: 1 }] })
    expect(reply.error?.data?.logs?.length).toBeGreaterThan(0)
  })

  it("with skipPreflight, lands a failing transaction: fee charged, err recorded", async () => {
    const { blockhash } = await connection.getLatestBlockhash()
    const before = await connection.getBalance(payer.publicKey)
    const signature = await connection.sendRawTransaction(transferTx(100 * LAMPORTS_PER_SOL, blockhash).serialize(), { skipPreflight: true })
    const status = await connection.getSignatureStatus(signature)
    expect(status.value?.err).toEqual({ InstructionError: [0, { Custom: 1 }] })
    expect(await connection.getBalance(payer.publicKey)).toBe(before - 5000)
  })

  it("simulates unsigned with replaceRecentBlockhash", async () => {
    const tx = new Transaction({ feePayer: payer.publicKey, recentBlockhash: "11111111111111111111111111111111" })
    tx.add(SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: Keypair.generate().publicKey, lamports: LAMPORTS_PER_SOL }))
    const wire = tx.serialize({ requireAllSignatures: false, verifySignatures: false }).toString("base64")
    const reply = await rawRpc<{ value: { err: unknown; replacementBlockhash: { blockhash: string } } }>(server.rpcUrl, {
      jsonrpc: "2.0", id: 1, method: "simulateTransaction", params: [wire, { encoding: "base64", replaceRecentBlockhash: true }]
    })
    expect(reply.result?.value.err).toBeNull()
    expect(typeof reply.result?.value.replacementBlockhash.blockhash).toBe("string")
    const both = await rawRpc(server.rpcUrl, {
      jsonrpc: "2.0", id: 2, method: "simulateTransaction", params: [wire, { encoding: "base64", replaceRecentBlockhash: true, sigVerify: true }]
    })
    expect(both.error?.code).toBe(-32602)
  })

  it("refuses an expired blockhash with BlockhashNotFound but accepts an older, still valid one", async () => {
    // An older blockhash (a newer one exists) still inside the 150-slot window is accepted. The window is
    // 750 ms here, so a machine that stalls longer between the steps gets another try with a fresh one.
    let old = await connection.getLatestBlockhash()
    let landed: string | undefined
    for (let attempt = 0; attempt < 5 && landed === undefined; attempt++) {
      old = await connection.getLatestBlockhash()
      while ((await connection.getLatestBlockhash()).blockhash === old.blockhash) await sleep(SLOT_MS)
      if (!(await connection.isBlockhashValid(old.blockhash)).value) continue
      const wire = transferTx(LAMPORTS_PER_SOL, old.blockhash).serialize()
      landed = await connection.sendRawTransaction(wire).catch(() => undefined)
    }
    expect(landed).toEqual(expect.any(String))
    expect((await connection.getSignatureStatus(landed!)).value?.err).toBeNull()

    // Past the window it expires: wait for that instead of sleeping a fixed time.
    const deadline = Date.now() + 30_000
    while ((await connection.isBlockhashValid(old.blockhash)).value) {
      if (Date.now() > deadline) throw new Error("the blockhash never expired")
      await sleep(50)
    }
    const wire = transferTx(LAMPORTS_PER_SOL, old.blockhash).serialize().toString("base64")
    for (const skipPreflight of [false, true]) {
      const reply = await rawRpc(server.rpcUrl, {
        jsonrpc: "2.0", id: 1, method: "sendTransaction", params: [wire, { encoding: "base64", skipPreflight }]
      })
      expect(reply.error?.code).toBe(-32002)
      expect(reply.error?.message).toBe("Transaction simulation failed: Blockhash not found")
      expect(reply.error?.data?.err).toBe("BlockhashNotFound")
    }
    await expect(connection.sendRawTransaction(Buffer.from(wire, "base64"))).rejects.toBeInstanceOf(SendTransactionError)
  })

  it("never executes a signature twice", async () => {
    const { blockhash } = await connection.getLatestBlockhash()
    const to = Keypair.generate().publicKey
    const raw = transferTx(LAMPORTS_PER_SOL, blockhash, to).serialize()
    await connection.sendRawTransaction(raw)
    const again = await rawRpc(server.rpcUrl, {
      jsonrpc: "2.0", id: 1, method: "sendTransaction", params: [raw.toString("base64"), { encoding: "base64" }]
    })
    expect(again.error?.data?.err).toBe("AlreadyProcessed")
    const rebroadcast = await connection.sendRawTransaction(raw, { skipPreflight: true })
    expect(typeof rebroadcast).toBe("string")
    expect(await connection.getBalance(to)).toBe(LAMPORTS_PER_SOL)
  })

  it("reports prioritization fees and fees for messages", async () => {
    // The fees reported are the last 150 slots': 60 s at the default slot time. On this file's fast slots
    // (0.75 s) the transaction's slot could leave the window before the question, on a loaded machine.
    const ledger = await startLedgerServer({ port: await pickPort(), dataDir: tempDataDir() })
    try {
      const on = new Connection(ledger.rpcUrl, { commitment: "confirmed", wsEndpoint: ledger.wsUrl })
      const airdrop = await on.requestAirdrop(payer.publicKey, 2 * LAMPORTS_PER_SOL)
      await on.confirmTransaction({ signature: airdrop, ...(await on.getLatestBlockhash()) })
      const tx = new Transaction().add(
        ComputeBudgetProgram.setComputeUnitLimit({ units: 10_000 }),
        ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 1_000_000 }),
        SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: Keypair.generate().publicKey, lamports: LAMPORTS_PER_SOL })
      )
      const signature = await signSendConfirm(tx, on)
      const fetched = await on.getTransaction(signature, { maxSupportedTransactionVersion: 0 })
      expect(fetched?.meta?.fee).toBe(15_000)
      expect((await on.getFeeForMessage(tx.compileMessage())).value).toBe(15_000)
      const fees = await on.getRecentPrioritizationFees()
      expect(fees.length).toBeGreaterThan(0)
      expect(fees.length).toBeLessThanOrEqual(150)
      expect(fees.some((f) => f.slot === fetched?.slot && f.prioritizationFee === 1_000_000)).toBe(true)
    } finally {
      await ledger.close()
    }
  })
})

describe("input validation", () => {
  it("answers garbage bytes with a JSON-RPC error and stays up", async () => {
    const garbage = [
      Buffer.from("not a transaction at all").toString("base64"),
      Buffer.alloc(300, 0xff).toString("base64"),
      // A valid signature section followed by a truncated message: this used to abort litesvm.
      transferTx(1, (await connection.getLatestBlockhash()).blockhash).serialize().subarray(0, 120).toString("base64")
    ]
    for (const wire of garbage) {
      const reply = await rawRpc(server.rpcUrl, { jsonrpc: "2.0", id: 1, method: "sendTransaction", params: [wire, { encoding: "base64" }] })
      expect(reply.error?.code).toBe(-32602)
    }
    const badBase58 = await rawRpc(server.rpcUrl, { jsonrpc: "2.0", id: 1, method: "sendTransaction", params: ["0OIl"] })
    expect(badBase58.error?.code).toBe(-32602)
    expect((await rawRpc(server.rpcUrl, { jsonrpc: "2.0", id: 2, method: "getHealth" })).result).toBe("ok")
  })

  it("uses the standard JSON-RPC error codes", async () => {
    expect((await rawRpc(server.rpcUrl, "{not json")).error?.code).toBe(-32700)
    expect((await rawRpc(server.rpcUrl, { jsonrpc: "2.0", id: 1, method: "noSuchMethod" })).error?.code).toBe(-32601)
    expect((await rawRpc(server.rpcUrl, { jsonrpc: "2.0", id: 1, method: "getBalance", params: ["xyz"] })).error?.code).toBe(-32602)
    expect((await rawRpc(server.rpcUrl, { jsonrpc: "2.0", id: 1, method: "getBalance", params: [42] })).error?.code).toBe(-32602)
    expect((await rawRpc(server.rpcUrl, { jsonrpc: "2.0", id: 1, method: "getSignatureStatuses", params: [[1]] })).error?.code).toBe(-32602)
  })

  it("answers batches in order", async () => {
    const response = await fetch(server.rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify([
        { jsonrpc: "2.0", id: 1, method: "getSlot" },
        { jsonrpc: "2.0", id: 2, method: "nope" },
        { jsonrpc: "2.0", id: 3, method: "getBalance", params: [payer.publicKey.toBase58()] }
      ])
    })
    const replies = (await response.json()) as Array<{ id: number; result?: unknown; error?: { code: number } }>
    expect(replies.map((r) => r.id)).toEqual([1, 2, 3])
    expect(typeof replies[0].result).toBe("number")
    expect(replies[1].error?.code).toBe(-32601)
  })

  it("refuses an airdrop too large for the faucet instead of failing silently", async () => {
    const reply = await rawRpc(server.rpcUrl, {
      jsonrpc: "2.0", id: 1, method: "requestAirdrop", params: [Keypair.generate().publicKey.toBase58(), 1e15]
    })
    expect(reply.error).toMatchObject({ code: expect.any(Number), message: expect.stringMatching(/airdrop/i) })
    expect(reply.result).toBeUndefined()
  })
})

describe("chain information and PubSub", () => {
  it("advances slots with wall-clock time", async () => {
    const first = await connection.getSlot()
    await sleep(20 * SLOT_MS)
    const epoch = await connection.getEpochInfo()
    expect(epoch.absoluteSlot).toBeGreaterThan(first)
    expect(epoch.blockHeight).toBe(epoch.absoluteSlot)
    expect((await connection.getVersion())["solana-core"]).toMatch(/^\d+\.\d+\.\d+$/)
    expect(typeof (await connection.getGenesisHash())).toBe("string")
    expect(await connection.getMinimumBalanceForRentExemption(0)).toBe(890_880)
  })

  it("notifies account changes and slots over the socket", async () => {
    const watched = Keypair.generate().publicKey
    let accountListener = -1
    const changed = new Promise<number>((resolve) => {
      accountListener = connection.onAccountChange(watched, (info) => resolve(info.lamports))
    })
    let slotListener = -1
    const slot = new Promise<number>((resolve) => {
      slotListener = connection.onSlotChange((info) => resolve(info.slot))
    })
    await sleep(100)
    const tx = new Transaction().add(SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: watched, lamports: LAMPORTS_PER_SOL }))
    await signSendConfirm(tx)
    expect(await changed).toBe(LAMPORTS_PER_SOL)
    expect(await slot).toBeGreaterThan(0)
    await connection.removeAccountChangeListener(accountListener)
    await connection.removeSlotChangeListener(slotListener)
  })
})

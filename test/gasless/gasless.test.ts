/**
 * Gasless submission end to end: the fee-payer relay (Kora JSON-RPC) on loopback beside a real
 * ledger, the service pointed at it by GASLESS_RPC_URL. A wallet holding tokens and no SOL sends
 * transfer_spl with gasless: true; the relay's key pays the fee. Ineligible and unsupported gasless
 * intents are refused at policy; a transaction the relay refuses to sign fails at send (nothing was sent:
 * the relay's signTransaction comes first, issue 30); a lost answer from the relay is settled against the
 * chain (issue 30).
 */
import { getAccount, getAssociatedTokenAddressSync } from "@solana/spl-token"
import { Connection, PublicKey } from "@solana/web3.js"
import { randomBytes } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { DEFAULT_ALLOWED_PROGRAMS } from "../../src/gasless/gaslessRules.js"
import { startRelayServer, type RunningRelay } from "../../src/gasless/relay/relayServer.js"
import { startFaultProxy } from "../support/faultProxy.js"
import { freePort } from "../support/freePort.js"
import { startTestLedger } from "../support/ledger.js"
import { makeClient } from "../support/client.js"
import { ADMIN_KEY, api, type RunningService, startService } from "../support/service.js"
import { createWallet, submit, waitSettled } from "../support/transactions.js"
import { sleep } from "../support/wait.js"

const RELAY_KEY = "relay-key-of-this-test"
const FRUGAL_KEY = "frugal-tenant-key"

let ledger: Awaited<ReturnType<typeof startTestLedger>>
let relay: RunningRelay
let service: RunningService
const connection = () => new Connection(ledger.rpcUrl, "confirmed")

beforeAll(async () => {
  ledger = await startTestLedger()
  relay = await startRelayServer({
    port: await freePort(),
    rpcUrl: ledger.rpcUrl,
    feePayerSeed: randomBytes(32),
    allowedPrograms: DEFAULT_ALLOWED_PROGRAMS,
    maxFeeLamports: 100_000n,
    apiKey: RELAY_KEY
  })
  const funded = await connection().requestAirdrop(new PublicKey(relay.feePayer), 10_000_000_000)
  await connection().confirmTransaction(funded, "confirmed")
  service = await startService({
    rpcUrl: ledger.rpcUrl,
    env: {
      GASLESS_RPC_URL: relay.url, GASLESS_RPC_API_KEY: RELAY_KEY,
      API_GATEWAY_API_KEYS: `${ADMIN_KEY}:*:all;${FRUGAL_KEY}:frugal:all`,
      // tenant `frugal` may have one transfer's fee relayed a day (two signatures and a priority fee: about 10,300 lamports), not two
      GASLESS_TENANT_FEE_QUOTAS: "frugal=15000"
    }
  })
})

afterAll(async () => {
  await service?.stop()
  await relay?.close()
  await ledger?.close()
})

const run = async (body: Record<string, unknown>) => {
  const created = await submit(service.baseUrl, body)
  expect(created.status).toBe(201)
  return (await waitSettled(service.baseUrl, created.body.data.id)).body
}

/**
 * The admin key acting for tenant `default`, where the tests' wallets live: a protocol risk config written
 * without a tenant is the deployment-wide layer, which cannot make a protocol gasless-eligible for a tenant.
 */
const tenantClient = (baseUrl: string) => makeClient(baseUrl, { "x-api-key": ADMIN_KEY, "x-tenant-id": "default" })

const counter = async (name: string) => ((await makeClient(service.baseUrl).audit.metrics({})).body.data[name] as number | undefined) ?? 0

describe("gasless submission through the fee-payer relay", () => {
  it("a wallet with tokens and 0 SOL sends transfer_spl gasless: confirmed, the relay paid the fee, the wallet still has 0 SOL", async () => {
    const issuer = await createWallet(service.baseUrl, 2_000_000_000)
    const holder = await createWallet(service.baseUrl)
    const receiver = await createWallet(service.baseUrl)
    const mintTx = await run({ walletId: issuer.id, type: "create_mint", protocol: "spl-token", intent: { decimals: 6 } })
    const mint = String(mintTx.data.result?.mint)
    // The issuer pays for both token accounts: the gasless sender and its receiver exist before the transfer.
    expect((await run({ walletId: issuer.id, type: "mint_token", protocol: "spl-token", intent: { mint, amount: "5000000", destination: holder.publicKey } })).data.status).toBe("confirmed")
    expect((await run({ walletId: issuer.id, type: "mint_token", protocol: "spl-token", intent: { mint, amount: "1", destination: receiver.publicKey } })).data.status).toBe("confirmed")
    expect(await connection().getBalance(new PublicKey(holder.publicKey))).toBe(0)

    const eligible = await tenantClient(service.baseUrl).risk.putProtocol({ params: { protocol: "spl-token" }, body: { gaslessEligible: true } })
    expect(eligible.status).toBe(200)
    const successBefore = await counter("gasless_transaction_success_total")

    const relayBefore = BigInt(await connection().getBalance(new PublicKey(relay.feePayer)))
    const sent = await run({ walletId: holder.id, type: "transfer_spl", protocol: "spl-token", gasless: true, intent: { destination: receiver.publicKey, mint, amount: "2000000" } })
    expect(sent.data.status, sent.error).toBe("confirmed")

    const mintKey = new PublicKey(mint)
    expect((await getAccount(connection(), getAssociatedTokenAddressSync(mintKey, new PublicKey(receiver.publicKey)))).amount).toBe(2_000_001n)
    expect((await getAccount(connection(), getAssociatedTokenAddressSync(mintKey, new PublicKey(holder.publicKey)))).amount).toBe(3_000_000n)
    expect(await connection().getBalance(new PublicKey(holder.publicKey))).toBe(0)

    // The landed transaction's fee payer is the relay's key, and the relay's balance paid exactly its fee.
    const landed = await connection().getTransaction(sent.data.signature as string, { commitment: "confirmed", maxSupportedTransactionVersion: 0 })
    expect(landed?.transaction.message.staticAccountKeys[0]?.toBase58()).toBe(relay.feePayer)
    const relayAfter = BigInt(await connection().getBalance(new PublicKey(relay.feePayer)))
    expect(landed?.meta?.fee).toBeGreaterThan(0)
    expect(relayBefore - relayAfter).toBe(BigInt(landed?.meta?.fee ?? 0))

    for (let i = 0; i < 40 && (await counter("gasless_transaction_success_total")) <= successBefore; i++) await sleep(100)
    expect(await counter("gasless_transaction_success_total")).toBe(successBefore + 1)
    expect(await counter("gasless_protocol_usage_total.spl-token")).toBeGreaterThanOrEqual(1)
  })

  it("refuses at policy a gasless intent of a protocol that is not gaslessEligible, and one that would initialize a token account", async () => {
    const payer = await createWallet(service.baseUrl, 1_000_000_000)
    const other = await createWallet(service.baseUrl, 1_000_000_000)
    const failuresBefore = await counter("gasless_transaction_failure_total")
    const ineligible = await run({ walletId: payer.id, type: "transfer_sol", protocol: "system-program", gasless: true, intent: { destination: other.publicKey, lamports: 1000 } })
    expect(ineligible).toMatchObject({ status: "failure", errorCode: "POLICY_VIOLATION", failedAt: "policy" })
    expect(ineligible.error).toContain("gaslessEligible")
    expect(await connection().getBalance(new PublicKey(other.publicKey))).toBe(1_000_000_000)

    await tenantClient(service.baseUrl).risk.putProtocol({ params: { protocol: "spl-token" }, body: { gaslessEligible: true } })
    const mintTx = await run({ walletId: payer.id, type: "create_mint", protocol: "spl-token", intent: { decimals: 0 } })
    const mint = String(mintTx.data.result?.mint)
    await run({ walletId: payer.id, type: "mint_token", protocol: "spl-token", intent: { mint, amount: "10" } })
    // The receiver has no token account: the transfer would create one (rent, token account initialization).
    const creating = await run({ walletId: payer.id, type: "transfer_spl", protocol: "spl-token", gasless: true, intent: { destination: other.publicKey, mint, amount: "3" } })
    expect(creating).toMatchObject({ status: "failure", errorCode: "POLICY_VIOLATION", failedAt: "policy" })
    expect(creating.error).toContain("token account")
    expect(await connection().getAccountInfo(getAssociatedTokenAddressSync(new PublicKey(mint), new PublicKey(other.publicKey)))).toBeNull()

    for (let i = 0; i < 40 && (await counter("gasless_transaction_failure_total")) < failuresBefore + 2; i++) await sleep(100)
    expect(await counter("gasless_transaction_failure_total")).toBe(failuresBefore + 2)
  })

  it("a lost answer from the relay: signAndSendTransaction sends, its answer is lost, then the relay is unreachable past the attempt limit; never failed, the resolver confirms it: paid once", async () => {
    const relayProxy = await startFaultProxy(relay.url)
    const lossy = await startService({ rpcUrl: ledger.rpcUrl, env: { GASLESS_RPC_URL: relayProxy.url, GASLESS_RPC_API_KEY: RELAY_KEY, TX_OUTBOX_MAX_ATTEMPTS: "2", TX_SETTLEMENT_SWEEP_MS: "200" } })
    try {
      await tenantClient(lossy.baseUrl).risk.putProtocol({ params: { protocol: "system-program" }, body: { gaslessEligible: true } })
      const payer = await createWallet(lossy.baseUrl, 1_000_000_000)
      const other = await createWallet(lossy.baseUrl, 1_000_000_000)
      relayProxy.add({ methods: ["signAndSendTransaction"], times: 1, action: { kind: "loseAnswer" }, then: [{ action: { kind: "unavailable" }, forMs: 3_000 }] })
      const created = await submit(lossy.baseUrl, { walletId: payer.id, type: "transfer_sol", protocol: "system-program", gasless: true, intent: { destination: other.publicKey, lamports: 12_345 } })
      const settled = (await waitSettled(lossy.baseUrl, created.body.data.id)).body.data
      expect(settled.status).toBe("confirmed")
      expect(settled.history.map((entry) => entry.status)).toEqual(["pending", "simulating", "policy_eval", "signing", "submitting", "submitting", "confirmed"])
      expect(settled.history[5]?.message).toMatch(/^unresolved: the outbox gave up after 2 attempts/)
      expect(relayProxy.faults.get("loseAnswer")).toBe(1)
      // The relay's transaction (its fee payer's signature) landed once: the receiver got the lamports once.
      const landed = await connection().getTransaction(settled.signature ?? "", { commitment: "confirmed", maxSupportedTransactionVersion: 0 })
      expect(landed?.transaction.message.staticAccountKeys[0]?.toBase58()).toBe(relay.feePayer)
      expect(await connection().getBalance(new PublicKey(other.publicKey))).toBe(1_000_000_000 + 12_345)
    } finally {
      await lossy.stop()
      await relayProxy.close()
    }
  })

  it("a transaction the relay refuses (its fee above the relay's maximum) fails at send with PIPELINE_ERROR, nothing landed", async () => {
    const strict = await startRelayServer({ port: await freePort(), rpcUrl: ledger.rpcUrl, feePayerSeed: randomBytes(32), allowedPrograms: DEFAULT_ALLOWED_PROGRAMS, maxFeeLamports: 5_000n })
    await connection().confirmTransaction(await connection().requestAirdrop(new PublicKey(strict.feePayer), 1_000_000_000), "confirmed")
    const strictService = await startService({ rpcUrl: ledger.rpcUrl, env: { GASLESS_RPC_URL: strict.url } })
    try {
      await tenantClient(strictService.baseUrl).risk.putProtocol({ params: { protocol: "system-program" }, body: { gaslessEligible: true } })
      const payer = await createWallet(strictService.baseUrl, 1_000_000_000)
      const other = await createWallet(strictService.baseUrl, 1_000_000_000)
      const created = await submit(strictService.baseUrl, { walletId: payer.id, type: "transfer_sol", protocol: "system-program", gasless: true, intent: { destination: other.publicKey, lamports: 1000 } })
      const refused = (await waitSettled(strictService.baseUrl, created.body.data.id)).body
      expect(refused, refused.error).toMatchObject({ status: "failure", errorCode: "PIPELINE_ERROR", failedAt: "send" })
      expect(refused.error).toContain("exceeds the maximum 5000")
      expect(await connection().getBalance(new PublicKey(other.publicKey))).toBe(1_000_000_000)
    } finally {
      await strictService.stop()
      await strict.close()
    }
  })
})

describe("who the relay serves and how much (issue 31)", () => {
  it("answers only requests with its key: anyone else reaching the port gets 401 and nothing is signed", async () => {
    const user = await createWallet(service.baseUrl, 1_000_000_000)
    const before = await connection().getBalance(new PublicKey(relay.feePayer))
    for (const headers of [{}, { "x-api-key": "guess" }] as Array<Record<string, string>>) {
      const response = await fetch(relay.url, {
        method: "POST", headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "signAndSendTransaction", params: { transaction: "AQ==" } })
      })
      expect(response.status).toBe(401)
      expect(((await response.json()) as { error: { message: string } }).error.message).toContain("unauthorized")
    }
    const getter = await fetch(relay.url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "getPayerSigner" }) })
    expect(getter.status).toBe(401)
    expect(await connection().getBalance(new PublicKey(relay.feePayer))).toBe(before)
    expect(user.publicKey).toBeDefined()
  })

  it("refuses a tenant's gasless transaction past its daily fee quota at policy with a clear error; nothing signed, other tenants unaffected", async () => {
    const as = { "x-api-key": FRUGAL_KEY }
    const riskOk = await api(service.baseUrl, "PUT", "/api/v1/risk/protocols/system-program", { gaslessEligible: true }, as)
    expect(riskOk.status).toBe(200)
    const payer = await createWallet(service.baseUrl, 1_000_000_000, as)
    const other = (await createWallet(service.baseUrl, 1_000_000_000, as)).publicKey
    const transfer = async () => {
      const created = await submit(service.baseUrl, { walletId: payer.id, type: "transfer_sol", protocol: "system-program", gasless: true, intent: { destination: other, lamports: 1000 } }, as)
      return (await waitSettled(service.baseUrl, created.body.data.id, 30_000, as)).body
    }
    const first = await transfer()
    expect(first.data.status, JSON.stringify([first.error, first.data.error, first.data.failedAt])).toBe("confirmed")
    const relayBefore = await connection().getBalance(new PublicKey(relay.feePayer))
    const refused = await transfer()
    expect(refused).toMatchObject({ status: "failure", errorCode: "POLICY_VIOLATION", failedAt: "policy" })
    expect(refused.error).toMatch(/gasless: tenant 'frugal' has used \d+ of its 15000 lamports of relayed fees for \d{4}-\d{2}-\d{2} \(UTC\)/)
    expect(refused.data.signature).toBeUndefined()
    expect(await connection().getBalance(new PublicKey(other))).toBe(1_000_001_000)
    expect(await connection().getBalance(new PublicKey(relay.feePayer))).toBe(relayBefore)
    // the refused one does not count: the quota is what was relayed, and the default tenant has its own
    const again = await transfer()
    expect(again.error).toMatch(/has used \d+ of its 15000/)
    expect(again.error).toContain(refused.error?.match(/has used (\d+)/)?.[1] ?? "missing")
    const defaultPayer = await createWallet(service.baseUrl, 1_000_000_000)
    await tenantClient(service.baseUrl).risk.putProtocol({ params: { protocol: "system-program" }, body: { gaslessEligible: true } })
    expect((await run({ walletId: defaultPayer.id, type: "transfer_sol", protocol: "system-program", gasless: true, intent: { destination: other, lamports: 1000 } })).data.status).toBe("confirmed")
  })
})

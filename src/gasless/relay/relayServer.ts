/**
 * A fee-payer relay speaking Kora's JSON-RPC interface (method and snake_case parameter names from
 * Kora's source and its `@solana/kora` client): getConfig, getPayerSigner, getBlockhash,
 * getSupportedTokens, estimateTransactionFee, signTransaction, signAndSendTransaction, liveness.
 * It holds its own fee-payer key (never the wallets'), pays only fees (gaslessRules.ts decides what it
 * refuses), simulates before it signs, and reaches the ledger only through Solana JSON-RPC.
 * Fees are free (Kora's `free` price model): no fee token is taken from the user.
 */
import bs58 from "bs58"
import { createHash, createPublicKey, timingSafeEqual, verify } from "node:crypto"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import { feeLamports, relayRefusals, type RelayLimits } from "../gaslessRules.js"
import { joinWireTransaction, splitWireTransaction, viewMessage } from "../../protocols/messageView.js"
import { relaySigner, type RelaySigner } from "./relayKey.js"
import { simulateForFeePayer } from "./feePayerEffect.js"

export interface RelayOptions {
  readonly port: number
  readonly host?: string
  /** Solana JSON-RPC of the ledger the relay sends to */
  readonly rpcUrl: string
  /** 32-byte Ed25519 seed of the fee payer */
  readonly feePayerSeed: Uint8Array
  readonly allowedPrograms: ReadonlyArray<string>
  readonly maxFeeLamports: bigint
  readonly maxSignatures?: number
  readonly supportedTokens?: ReadonlyArray<string>
  /**
   * When set, only requests presenting it in `x-api-key` (Kora's header) are served: the relay pays fees, so it
   * serves its own service's processes only (src/gasless/relayApiKey.ts). Others get HTTP 401.
   */
  readonly apiKey?: string
}

export interface RunningRelay {
  readonly url: string
  readonly feePayer: string
  close(): Promise<void>
}

/** A JSON-RPC error the caller gets back: -32601 unknown method, -32602 bad params, -32000 refused. */
class RpcFailure extends Error {
  constructor(readonly code: number, message: string) {
    super(message)
  }
}

const MAX_BODY_BYTES = 256 * 1024

const readBody = (request: IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Array<Buffer> = []
    let size = 0
    request.on("data", (chunk: Buffer) => {
      size += chunk.length
      if (size > MAX_BODY_BYTES) {
        reject(new RpcFailure(-32600, "request body too large"))
        request.destroy()
      } else chunks.push(chunk)
    })
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")))
    request.on("error", reject)
  })

/** Kora's params are an object; a missing one is accepted (its client sends none for the getters). */
const paramsObject = (params: unknown): Record<string, unknown> => {
  if (params === undefined || params === null) return {}
  if (Array.isArray(params)) return typeof params[0] === "string" ? { transaction: params[0] } : {}
  if (typeof params === "object") return params as Record<string, unknown>
  throw new RpcFailure(-32602, "params must be an object")
}

const verifyEd25519 = (publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean => {
  const key = createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: Buffer.from(publicKey).toString("base64url") }, format: "jwk" })
  return verify(null, message, key, signature)
}

export const startRelayServer = async (options: RelayOptions): Promise<RunningRelay> => {
  const signer: RelaySigner = relaySigner(options.feePayerSeed)
  const limits: RelayLimits = {
    feePayer: signer.address,
    allowedPrograms: options.allowedPrograms,
    maxFeeLamports: options.maxFeeLamports,
    maxSignatures: options.maxSignatures ?? 4
  }
  const allowedPrograms: ReadonlySet<string> = new Set(options.allowedPrograms)
  let rpcId = 0
  const ledger = async <A>(method: string, params: ReadonlyArray<unknown>): Promise<A> => {
    const response = await fetch(options.rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: ++rpcId, method, params }),
      signal: AbortSignal.timeout(15_000)
    })
    const body = (await response.json()) as { result?: A; error?: { message?: string } }
    if (body.error !== undefined) throw new RpcFailure(-32000, `ledger ${method}: ${body.error.message ?? "error"}`)
    return body.result as A
  }

  /** Decodes and validates the caller's transaction; returns its signatures and message. */
  const accept = (params: Record<string, unknown>) => {
    if (typeof params.transaction !== "string" || params.transaction === "") throw new RpcFailure(-32602, "params.transaction (base64) is required")
    if (params.signer_key !== undefined && params.signer_key !== signer.address) throw new RpcFailure(-32602, `params.signer_key ${String(params.signer_key)} is not a signer of this relay`)
    let signatures: Array<Uint8Array>
    let message: Uint8Array
    let view: ReturnType<typeof viewMessage>
    try {
      ;({ signatures, message } = splitWireTransaction(Buffer.from(params.transaction, "base64")))
      view = viewMessage(message)
    } catch (error) {
      throw new RpcFailure(-32602, `params.transaction is not a Solana transaction: ${(error as Error).message}`)
    }
    if (signatures.length !== view.numRequiredSignatures) throw new RpcFailure(-32602, "params.transaction has the wrong number of signatures")
    const refusals = relayRefusals(view, limits)
    if (refusals.length > 0) throw new RpcFailure(-32000, `transaction refused: ${refusals.join("; ")}`)
    if (params.sig_verify === true) {
      for (let i = 1; i < signatures.length; i++) {
        if (!verifyEd25519(bs58.decode(view.accountKeys[i]), message, signatures[i])) throw new RpcFailure(-32000, `signature ${i} (${view.accountKeys[i]}) does not verify`)
      }
    }
    return { signatures, message, view }
  }

  /** Simulates (other signatures not verified: a partly signed transaction is normal here), then signs. */
  const signChecked = async (params: Record<string, unknown>) => {
    const { signatures, message, view } = accept(params)
    const unsigned = joinWireTransaction(signatures, message).toString("base64")
    // the whole effect on the fee payer: it pays the fee and nothing else (feePayerEffect.ts)
    const judged = await simulateForFeePayer(ledger, unsigned, view, signer.address, allowedPrograms).catch((error: unknown) => {
      if (error instanceof RpcFailure) throw error
      throw new RpcFailure(-32000, `transaction refused: its effect could not be read: ${error instanceof Error ? error.message : String(error)}`)
    })
    if ("err" in judged) throw new RpcFailure(-32000, `simulation failed: ${JSON.stringify(judged.err)}`)
    if (judged.refusals.length > 0) throw new RpcFailure(-32000, `transaction refused: ${judged.refusals.join("; ")}`)
    const signature = signer.sign(message)
    const signed = joinWireTransaction([signature, ...signatures.slice(1)], message)
    return { signature: bs58.encode(signature), signed: signed.toString("base64"), view }
  }

  const methods: Record<string, (params: Record<string, unknown>) => Promise<unknown>> = {
    liveness: async () => "ok",
    getConfig: async () => ({
      fee_payers: [signer.address],
      validation_config: {
        max_allowed_lamports: Number(options.maxFeeLamports),
        max_signatures: limits.maxSignatures,
        price_source: "Mock",
        allowed_programs: [...options.allowedPrograms],
        allowed_tokens: [...(options.supportedTokens ?? [])],
        allowed_spl_paid_tokens: [],
        disallowed_accounts: [],
        fee_payer_policy: {
          system: { allow_transfer: false, allow_assign: false, allow_create_account: false, allow_allocate: false, nonce: { allow_initialize: false, allow_advance: false, allow_authorize: false, allow_withdraw: false } },
          spl_token: { allow_transfer: false, allow_burn: false, allow_close_account: false, allow_approve: false, allow_revoke: false, allow_set_authority: false, allow_mint_to: false, allow_freeze_account: false, allow_thaw_account: false },
          token_2022: { allow_transfer: false, allow_burn: false, allow_close_account: false, allow_approve: false, allow_revoke: false, allow_set_authority: false, allow_mint_to: false, allow_freeze_account: false, allow_thaw_account: false }
        },
        price: { type: "free" },
        token2022: { blocked_mint_extensions: [], blocked_account_extensions: [] }
      },
      enabled_methods: {
        liveness: true, estimate_transaction_fee: true, get_supported_tokens: true, sign_transaction: true,
        sign_and_send_transaction: true, transfer_transaction: false, get_blockhash: true, get_config: true
      }
    }),
    getPayerSigner: async () => ({ signer_address: signer.address, payment_address: signer.address }),
    getBlockhash: async () => {
      const { value } = await ledger<{ value: { blockhash: string } }>("getLatestBlockhash", [{ commitment: "confirmed" }])
      return { blockhash: value.blockhash }
    },
    getSupportedTokens: async () => ({ tokens: [...(options.supportedTokens ?? [])] }),
    estimateTransactionFee: async (params) => {
      if (params.fee_token !== undefined && typeof params.fee_token !== "string") throw new RpcFailure(-32602, "params.fee_token must be a mint address")
      const { view } = accept(params)
      const lamports = Number(feeLamports(view))
      return { fee_in_lamports: lamports, fee_in_token: 0, signer_pubkey: signer.address, payment_address: signer.address }
    },
    signTransaction: async (params) => {
      const { signed } = await signChecked(params)
      return { signed_transaction: signed, signer_pubkey: signer.address }
    },
    signAndSendTransaction: async (params) => {
      const { signature, signed } = await signChecked(params)
      // The same bytes sign to the same signature: a repeated request finds it landed and does not send again.
      const { value } = await ledger<{ value: Array<{ err: unknown } | null> }>("getSignatureStatuses", [[signature], { searchTransactionHistory: true }])
      if (value[0] === null || value[0] === undefined) {
        await ledger<string>("sendTransaction", [signed, { encoding: "base64", skipPreflight: true, maxRetries: 0 }])
      }
      return { signature, signed_transaction: signed, signer_pubkey: signer.address }
    }
  }

  const answer = (response: ServerResponse, status: number, body: unknown) => {
    const text = JSON.stringify(body)
    response.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) })
    response.end(text)
  }

  const keyDigest = options.apiKey === undefined ? undefined : createHash("sha256").update(options.apiKey).digest()
  /** Constant time over digests (the presented key's length says nothing). */
  const presentsKey = (request: IncomingMessage) => {
    if (keyDigest === undefined) return true
    const presented = request.headers["x-api-key"]
    return typeof presented === "string" && timingSafeEqual(createHash("sha256").update(presented).digest(), keyDigest)
  }

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    if (!presentsKey(request)) {
      request.resume()
      return answer(response, 401, { jsonrpc: "2.0", id: null, error: { code: -32001, message: "unauthorized: this relay pays fees only for its own service's processes (x-api-key)" } })
    }
    if (request.method !== "POST") return answer(response, 405, { jsonrpc: "2.0", id: null, error: { code: -32600, message: "POST a JSON-RPC 2.0 request" } })
    let id: unknown = null
    try {
      let call: { id?: unknown; method?: unknown; params?: unknown }
      try {
        call = JSON.parse(await readBody(request)) as typeof call
      } catch (error) {
        if (error instanceof RpcFailure) throw error
        throw new RpcFailure(-32700, "parse error")
      }
      id = call.id ?? null
      const method = typeof call.method === "string" ? methods[call.method] : undefined
      if (method === undefined) throw new RpcFailure(-32601, `method not found: ${String(call.method)}`)
      const result = await method(paramsObject(call.params))
      answer(response, 200, { jsonrpc: "2.0", id, result })
    } catch (error) {
      const failure = error instanceof RpcFailure ? error : new RpcFailure(-32603, `internal error: ${(error as Error).message}`)
      answer(response, 200, { jsonrpc: "2.0", id, error: { code: failure.code, message: failure.message } })
    }
  }

  const server: Server = createServer((request, response) => void handle(request, response))
  const host = options.host ?? "127.0.0.1"
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(options.port, host, () => resolve())
  })
  const address = server.address()
  const port = typeof address === "object" && address !== null ? address.port : options.port
  return {
    url: `http://${host}:${port}`,
    feePayer: signer.address,
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}


/**
 * The wallet component: creates wallets (key in the configured backend, row in SQL, optional funding),
 * reads them within the caller's tenant, and reads balances and token accounts from the ledger.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import bs58 from "bs58"
import { randomUUID } from "node:crypto"
import { NotFound, UpstreamUnavailable } from "../../schemas/errors.js"
import type { CreateWalletBody, TokenBalance } from "../../schemas/wallet.js"
import { AuditLog } from "../audit/auditLog.js"
import { ChainClient, TOKEN_PROGRAM_ID } from "../chain/chainClient.js"
import type { PageRequest } from "../db/keysetPage.js"
import type { CallerInfo } from "../gateway/caller.js"
import { AutoFunder } from "./autoFund.js"
import { KeyStore } from "./keyStore.js"
import { type StoredWallet, WalletRepo } from "./walletRepo.js"
import { idempotencyKeyTaken } from "../gateway/idempotencyKeyRefusal.js"

const TOKEN_PROGRAMS = [TOKEN_PROGRAM_ID, "TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb"]

const chainUnavailable = (error: { message: string }) =>
  new UpstreamUnavailable({ message: `ledger RPC unavailable: ${error.message}` })

export class WalletService extends Effect.Service<WalletService>()("WalletService", {
  dependencies: [WalletRepo.Default, KeyStore.Default, AutoFunder.Default],
  effect: Effect.gen(function* () {
    const repo = yield* WalletRepo
    const keys = yield* KeyStore
    const chain = yield* ChainClient
    const funder = yield* AutoFunder
    const audit = yield* AuditLog
    const sql = yield* SqlClient.SqlClient

    /**
     * The request a wallet's idempotency key stands for: a create sent again with the key must ask the same
     * (label, autoFund, fundLamports), else it is a 400 naming the key.
     */
    const requestOf = (body: CreateWalletBody) =>
      JSON.stringify({ label: body.label ?? null, autoFund: body.autoFund, fundLamports: body.fundLamports?.toString() ?? null })

    /** The wallet an earlier create with the key made (`created: false`), or a 400 when it asked something else. */
    const madeBefore = (key: string, earlier: { readonly stored: StoredWallet; readonly request: string }, body: CreateWalletBody) =>
      earlier.request === requestOf(body)
        ? Effect.succeed({ wallet: { ...earlier.stored.wallet }, created: false })
        : Effect.fail(idempotencyKeyTaken(key, { resource: "wallet", id: earlier.stored.wallet.id }))

    /**
     * A new wallet (`created`), or, for an `idempotencyKey` the tenant used before with the same request, the
     * wallet it made, funded then or not (its funding is not done again; read its balance).
     */
    const create = (caller: CallerInfo, body: CreateWalletBody) =>
      Effect.gen(function* () {
        const idempotency = body.idempotencyKey === undefined ? undefined : { key: body.idempotencyKey, request: requestOf(body) }
        if (idempotency !== undefined) {
          const earlier = yield* repo.byIdempotencyKey(caller.tenant, idempotency.key)
          if (earlier !== undefined) return yield* madeBefore(idempotency.key, earlier, body)
        }
        // The daily auto-funding cap is checked before anything is created: a refusal changes nothing.
        const fundLamports = body.fundLamports ?? funder.defaultLamports
        const reservation = body.autoFund ? yield* funder.reserve(caller.tenant, fundLamports) : undefined
        const id = randomUUID()
        // A backend that cannot make a key now (an mpc node down, a token not reachable) is a 503 saying why.
        const key = yield* keys.createKey(id).pipe(Effect.mapError((error) => new UpstreamUnavailable({ message: error.message })))
        // The wallet and its event commit together.
        const stored = yield* sql.withTransaction(
          Effect.tap(
            repo.insert({
              id,
              tenant_id: caller.tenant,
              public_key: bs58.encode(key.publicKey),
              provider: key.provider,
              key_backend: key.backend,
              label: body.label ?? null
            }, idempotency),
            (stored) =>
              stored === undefined
                ? Effect.void
                : audit.record({
                    tenantId: caller.tenant,
                    eventType: "wallet.created",
                    message: `wallet ${id} created`,
                    metadata: { publicKey: stored.wallet.publicKey, provider: stored.wallet.provider, autoFund: body.autoFund },
                    walletId: id,
                    entityType: "wallet",
                    category: "wallet",
                    traceId: caller.traceId
                  })
          )
        ).pipe(Effect.catchTag("SqlError", (error) => Effect.die(error)))
        if (stored === undefined) {
          // Another create with the same key won the race: its wallet is the answer (the key made here names no wallet and is never used).
          if (reservation !== undefined) yield* funder.release(reservation)
          const earlier = yield* repo.byIdempotencyKey(caller.tenant, idempotency?.key ?? "")
          if (earlier === undefined) return yield* Effect.die(new Error("a wallet's idempotency key was taken and its wallet is gone"))
          return yield* madeBefore(idempotency?.key ?? "", earlier, body)
        }
        if (reservation === undefined) return { wallet: { ...stored.wallet }, created: true }
        const funding = yield* funder.fund(stored.wallet.publicKey, fundLamports)
        if (!funding.ok) yield* funder.release(reservation)
        return { wallet: { ...stored.wallet, funding }, created: true }
      }).pipe(Effect.withSpan("WalletService.create"))

    const get = (caller: CallerInfo, id: string) =>
      Effect.flatMap(repo.find(id, caller.readTenant), (stored) =>
        stored === undefined ? Effect.fail(new NotFound({ resource: "wallet", id })) : Effect.succeed(stored)
      )

    const balance = (caller: CallerInfo, id: string) =>
      Effect.gen(function* () {
        const stored = yield* get(caller, id)
        const lamports = yield* chain.getBalance(stored.wallet.publicKey).pipe(Effect.mapError(chainUnavailable))
        return { lamports, sol: Number(lamports) / 1e9 }
      })

    const tokens = (caller: CallerInfo, id: string) =>
      Effect.gen(function* () {
        const stored = yield* get(caller, id)
        const results = yield* Effect.forEach(TOKEN_PROGRAMS, (programId) =>
          chain.tokenAccounts(stored.wallet.publicKey, programId).pipe(
            // A ledger without Token-2022 answers an error for it; the classic program must answer.
            Effect.catchTag("RpcApplicationError", (e) => (programId === TOKEN_PROGRAM_ID ? Effect.fail(e) : Effect.succeed([])))
          )
        ).pipe(Effect.mapError(chainUnavailable))
        const list: Array<TokenBalance> = results.flat().map((account) => ({
          ...account,
          uiAmount: account.uiAmount ?? Number(account.amount) / 10 ** account.decimals
        }))
        return { tokens: list }
      })

    const list = (caller: CallerInfo, options: PageRequest & { publicKey?: string }) => repo.list(caller.readTenant, options)

    return { create, get, balance, tokens, list }
  })
}) {}

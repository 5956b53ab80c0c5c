/**
 * Which adapter builds which transaction: reads the chain facts each builder needs and calls it.
 * A protocol/type without an adapter is a build failure with a clear message.
 */
import { getAssociatedTokenAddressSync, MINT_SIZE, TOKEN_PROGRAM_ID } from "@solana/spl-token"
import { PublicKey } from "@solana/web3.js"
import { Effect, Either } from "effect"
import bs58 from "bs58"
import type { ChainError } from "../chain/chainClient.js"
import { AdapterInputError } from "../protocols/adapterError.js"
import type { BuiltTransaction } from "../protocols/builtTransaction.js"
import { buildEscrowWithChain } from "../protocols/escrow/buildWithChain.js"
import type { EscrowProgram } from "../protocols/escrow/program.js"
import { buildCreateMint, buildMintToken, buildTransferSpl, type MintFacts } from "../protocols/splToken.js"
import { buildTransferSol } from "../protocols/systemProgram.js"
import { ChainFacts, decodeMint, decodeTokenAccountAmount } from "./chainFacts.js"

export interface BuildRequest {
  readonly type: string
  readonly protocol: string
  readonly wallet: PublicKey
  readonly intent: Readonly<Record<string, unknown>>
}

const fromEither = <A>(either: Either.Either<A, AdapterInputError>) => Either.match(either, { onLeft: Effect.fail, onRight: Effect.succeed })

const refuse = (request: BuildRequest, message: string) =>
  Effect.fail(new AdapterInputError({ protocol: request.protocol, operation: request.type, message }))

const readAddress = (request: BuildRequest, field: string) => {
  const value = request.intent[field]
  try {
    return typeof value === "string" ? Effect.succeed(new PublicKey(value)) : refuse(request, `intent.${field} is missing`)
  } catch {
    return refuse(request, `intent.${field} is not a valid address`)
  }
}

const mintFacts = (request: BuildRequest, mint: PublicKey) =>
  Effect.gen(function* () {
    const facts = yield* ChainFacts
    const [account] = yield* facts.accounts([mint.toBase58()])
    if (account === null) return yield* refuse(request, `mint ${mint.toBase58()} does not exist on the ledger`)
    if (account.data.length < 82) return yield* refuse(request, `account ${mint.toBase58()} is not a mint`)
    const decoded = decodeMint(account.data)
    return {
      programId: account.owner,
      decimals: decoded.decimals,
      mintAuthority: decoded.mintAuthority === null ? null : bs58.encode(decoded.mintAuthority)
    } satisfies MintFacts
  })

const systemProgram = (request: BuildRequest) =>
  Effect.gen(function* () {
    if (request.type !== "transfer_sol") return yield* refuse(request, `system-program has no adapter for ${request.type}`)
    const facts = yield* ChainFacts
    const destination = yield* readAddress(request, "destination")
    const [account] = yield* facts.accounts([destination.toBase58()])
    const rentExemptMinimum = yield* facts.rentExemptMinimum(account === null ? 0 : account.data.length)
    return yield* fromEither(
      buildTransferSol({
        wallet: request.wallet,
        intent: request.intent,
        chain: { destinationExists: account !== null, destinationLamports: account?.lamports ?? 0n, rentExemptMinimum }
      })
    )
  })

const splToken = (request: BuildRequest) =>
  Effect.gen(function* () {
    const facts = yield* ChainFacts
    switch (request.type) {
      case "create_mint": {
        const mintRentExemptMinimum = yield* facts.rentExemptMinimum(MINT_SIZE)
        return yield* fromEither(buildCreateMint({ wallet: request.wallet, intent: request.intent, mintRentExemptMinimum }))
      }
      case "transfer_spl": {
        const mint = yield* readAddress(request, "mint")
        const destination = yield* readAddress(request, "destination")
        const mintInfo = yield* mintFacts(request, mint)
        const source = getAssociatedTokenAddressSync(mint, request.wallet, false, TOKEN_PROGRAM_ID)
        const onCurve = PublicKey.isOnCurve(destination.toBytes())
        const target = onCurve ? getAssociatedTokenAddressSync(mint, destination, false, TOKEN_PROGRAM_ID) : destination
        const [sourceAccount, targetAccount, destinationAccount] = yield* facts.accounts([source.toBase58(), target.toBase58(), destination.toBase58()])
        return yield* fromEither(
          buildTransferSpl({
            wallet: request.wallet,
            intent: request.intent,
            chain: {
              mint: mintInfo,
              sourceTokenBalance: sourceAccount === null ? null : decodeTokenAccountAmount(sourceAccount.data),
              destinationTokenAccountExists: targetAccount !== null,
              destinationAccountProgramId: destinationAccount?.owner ?? null
            }
          })
        )
      }
      case "mint_token": {
        const mint = yield* readAddress(request, "mint")
        const mintInfo = yield* mintFacts(request, mint)
        const owner = typeof request.intent.destination === "string" ? yield* readAddress(request, "destination") : request.wallet
        const target = PublicKey.isOnCurve(owner.toBytes()) ? getAssociatedTokenAddressSync(mint, owner, false, TOKEN_PROGRAM_ID) : owner
        const [targetAccount] = yield* facts.accounts([target.toBase58()])
        return yield* fromEither(
          buildMintToken({ wallet: request.wallet, intent: request.intent, chain: { mint: mintInfo, destinationTokenAccountExists: targetAccount !== null } })
        )
      }
      default:
        return yield* refuse(request, `spl-token has no adapter for ${request.type}`)
    }
  })

export const buildWithAdapter = (
  request: BuildRequest
): Effect.Effect<BuiltTransaction, AdapterInputError | ChainError, ChainFacts | EscrowProgram> => {
  if (request.protocol === "system-program") return systemProgram(request)
  if (request.protocol === "spl-token") return splToken(request)
  if (request.protocol === "escrow") return buildEscrowWithChain(request)
  return refuse(request, `no adapter builds ${request.type} for protocol ${request.protocol} yet`)
}

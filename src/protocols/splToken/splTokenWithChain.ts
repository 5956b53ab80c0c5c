/** spl-token builders with the chain facts they need (mint, token accounts), read through ChainFacts. */
import { getAssociatedTokenAddressSync, MINT_SIZE, TOKEN_PROGRAM_ID } from "@solana/spl-token"
import { PublicKey } from "@solana/web3.js"
import { Effect, Either } from "effect"
import bs58 from "bs58"
import { ChainFacts, decodeMint, decodeTokenAccountAmount } from "../../chain/chainFacts.js"
import { AdapterInputError } from "../adapterError.js"
import type { Builders } from "../adapterRequest.js"
import { buildBurnToken } from "./burnToken.js"
import { buildCreateMint, buildMintToken, buildTransferSpl, type MintFacts } from "./splToken.js"

const PROTOCOL = "spl-token"

const fromEither = <A>(either: Either.Either<A, AdapterInputError>) => Either.match(either, { onLeft: Effect.fail, onRight: Effect.succeed })

const refuse = (operation: string, message: string) => Effect.fail(new AdapterInputError({ protocol: PROTOCOL, operation, message }))

/** The mint's owner program, decimals and authority, or a refusal when the address holds no mint. */
export const mintFacts = (operation: string, mint: PublicKey) =>
  Effect.gen(function* () {
    const facts = yield* ChainFacts
    const [account] = yield* facts.accounts([mint.toBase58()])
    if (account === null) return yield* refuse(operation, `mint ${mint.toBase58()} does not exist on the ledger`)
    if (account.data.length < 82) return yield* refuse(operation, `account ${mint.toBase58()} is not a mint`)
    const decoded = decodeMint(account.data)
    return {
      programId: account.owner,
      decimals: decoded.decimals,
      mintAuthority: decoded.mintAuthority === null ? null : bs58.encode(decoded.mintAuthority)
    } satisfies MintFacts
  })

export const splTokenBuilders: Builders = {
  create_mint: (request) =>
    Effect.gen(function* () {
      const facts = yield* ChainFacts
      const mintRentExemptMinimum = yield* facts.rentExemptMinimum(MINT_SIZE)
      return yield* fromEither(buildCreateMint({ wallet: request.wallet, intent: request.intent, mintRentExemptMinimum }))
    }),
  transfer_spl: (request) =>
    Effect.gen(function* () {
      const facts = yield* ChainFacts
      const mint = new PublicKey(request.intent.mint)
      const destination = new PublicKey(request.intent.destination)
      const mintInfo = yield* mintFacts("transfer_spl", mint)
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
    }),
  mint_token: (request) =>
    Effect.gen(function* () {
      const facts = yield* ChainFacts
      const mint = new PublicKey(request.intent.mint)
      const mintInfo = yield* mintFacts("mint_token", mint)
      const owner = request.intent.destination === undefined ? request.wallet : new PublicKey(request.intent.destination)
      const target = PublicKey.isOnCurve(owner.toBytes()) ? getAssociatedTokenAddressSync(mint, owner, false, TOKEN_PROGRAM_ID) : owner
      const [targetAccount] = yield* facts.accounts([target.toBase58()])
      return yield* fromEither(
        buildMintToken({ wallet: request.wallet, intent: request.intent, chain: { mint: mintInfo, destinationTokenAccountExists: targetAccount !== null } })
      )
    }),
  burn_token: (request) =>
    Effect.gen(function* () {
      const facts = yield* ChainFacts
      const mint = new PublicKey(request.intent.mint)
      const mintInfo = yield* mintFacts("burn_token", mint)
      const account = getAssociatedTokenAddressSync(mint, request.wallet, false, TOKEN_PROGRAM_ID)
      const [tokenAccount] = yield* facts.accounts([account.toBase58()])
      return yield* fromEither(
        buildBurnToken({
          wallet: request.wallet,
          intent: request.intent,
          chain: { mint: mintInfo, tokenBalance: tokenAccount === null ? null : decodeTokenAccountAmount(tokenAccount.data) }
        })
      )
    })
}

/**
 * nft_mint (docs/decisions/nft.md): one transaction that creates a Token-2022 mint whose metadata lives
 * in the mint itself (metadata-pointer + token-metadata extensions), writes the royalty and creators as
 * additional metadata fields, mints the single token to the wallet and removes the mint authority.
 */
import {
  AuthorityType,
  createAssociatedTokenAccountIdempotentInstruction,
  createInitializeMetadataPointerInstruction,
  createInitializeMint2Instruction,
  createMintToInstruction,
  createSetAuthorityInstruction,
  ExtensionType,
  getAssociatedTokenAddressSync,
  getMintLen,
  LENGTH_SIZE,
  TOKEN_2022_PROGRAM_ID,
  TYPE_SIZE
} from "@solana/spl-token"
import { createInitializeInstruction, createUpdateFieldInstruction, pack, type TokenMetadata } from "@solana/spl-token-metadata"
import { Keypair, type PublicKey, SystemProgram } from "@solana/web3.js"
import { Either } from "effect"
import type { IntentPayload } from "../../../schemas/intent.js"
import { AdapterInputError } from "../adapterError.js"
import { type BuiltTransaction, builtTransaction } from "../builtTransaction.js"

/** Additional metadata keys (Token-2022 metadata has no royalty or creator fields of its own). */
export const ROYALTY_FIELD = "seller_fee_basis_points"
export const CREATORS_FIELD = "creators"

type NftIntent = IntentPayload<"nft_mint">

/** `address:share:verified` per creator, comma separated: short enough to fit one transaction. */
export const encodeCreators = (creators: NftIntent["creators"]): string =>
  creators.map((c) => `${c.address}:${c.share}:${c.verified}`).join(",")

export const decodeCreators = (value: string) =>
  value.split(",").map((entry) => {
    const [address = "", share = "", verified = ""] = entry.split(":")
    return { address, share: Number(share), verified: verified === "true" }
  })

export interface NftMintInput {
  readonly wallet: PublicKey
  readonly intent: NftIntent
  /** rent-exempt minimum of the mint account at its final size (nftMintAccountSize) */
  readonly rentExemptMinimum: bigint
  readonly mintKeypair?: Keypair
}

/** Metadata fields of the mint as written (the update authority stays with the wallet). */
export const nftMetadata = (wallet: PublicKey, mint: PublicKey, intent: NftIntent): TokenMetadata => ({
  updateAuthority: wallet,
  mint,
  name: intent.name,
  symbol: intent.symbol,
  uri: intent.uri,
  additionalMetadata: [
    [ROYALTY_FIELD, String(intent.sellerFeeBasisPoints)],
    [CREATORS_FIELD, encodeCreators(intent.creators)]
  ]
})

const MINT_LEN = getMintLen([ExtensionType.MetadataPointer])

/**
 * The mint account's size once its metadata is written. The token-metadata instructions grow the
 * account, so the lamports for this size go in at creation. The size does not depend on the mint's address.
 */
export const nftMintAccountSize = (wallet: PublicKey, intent: NftIntent): number =>
  MINT_LEN + TYPE_SIZE + LENGTH_SIZE + pack(nftMetadata(wallet, wallet, intent)).length

export const buildNftMint = (input: NftMintInput): Either.Either<BuiltTransaction, AdapterInputError> => {
  const ctx = { protocol: "nft-program", operation: "nft_mint" }
  // A creator is verified only by signing; the wallet is the only signer here.
  const claimed = input.intent.creators.findIndex((c) => c.verified && c.address !== input.wallet.toBase58())
  if (claimed >= 0) {
    return Either.left(
      new AdapterInputError({
        ...ctx,
        field: `creators[${claimed}].verified`,
        message: `intent.creators[${claimed}].verified: only the minting wallet can be a verified creator (a creator verifies by signing)`
      })
    )
  }
  const mint = input.mintKeypair ?? Keypair.generate()
  const wallet = input.wallet
  const metadata = nftMetadata(wallet, mint.publicKey, input.intent)
  const lamports = input.rentExemptMinimum
  const tokenAccount = getAssociatedTokenAddressSync(mint.publicKey, wallet, false, TOKEN_2022_PROGRAM_ID)
  const metadataArgs = { programId: TOKEN_2022_PROGRAM_ID, metadata: mint.publicKey, updateAuthority: wallet }
  const instructions = [
    SystemProgram.createAccount({ fromPubkey: wallet, newAccountPubkey: mint.publicKey, lamports: Number(lamports), space: MINT_LEN, programId: TOKEN_2022_PROGRAM_ID }),
    createInitializeMetadataPointerInstruction(mint.publicKey, wallet, mint.publicKey, TOKEN_2022_PROGRAM_ID),
    createInitializeMint2Instruction(mint.publicKey, 0, wallet, null, TOKEN_2022_PROGRAM_ID),
    createInitializeInstruction({ ...metadataArgs, mint: mint.publicKey, mintAuthority: wallet, name: metadata.name, symbol: metadata.symbol, uri: metadata.uri }),
    ...metadata.additionalMetadata.map(([field, value]) => createUpdateFieldInstruction({ ...metadataArgs, field, value })),
    createAssociatedTokenAccountIdempotentInstruction(wallet, tokenAccount, wallet, mint.publicKey, TOKEN_2022_PROGRAM_ID),
    createMintToInstruction(mint.publicKey, tokenAccount, wallet, 1, [], TOKEN_2022_PROGRAM_ID),
    createSetAuthorityInstruction(mint.publicKey, wallet, AuthorityType.MintTokens, null, [], TOKEN_2022_PROGRAM_ID)
  ]
  return Either.right(
    builtTransaction(instructions, { destination: mint.publicKey.toBase58(), tokenMint: mint.publicKey.toBase58(), amountLamports: lamports, tokenAmount: 1n }, [mint])
  )
}

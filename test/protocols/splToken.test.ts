import {
  ASSOCIATED_TOKEN_PROGRAM_ID,
  decodeInitializeMint2Instruction,
  decodeMintToCheckedInstruction,
  decodeTransferCheckedInstruction,
  getAssociatedTokenAddressSync,
  MINT_SIZE,
  TOKEN_2022_PROGRAM_ID,
  TOKEN_PROGRAM_ID
} from "@solana/spl-token"
import { Keypair, PublicKey, SystemInstruction, SystemProgram, Transaction, type TransactionInstruction } from "@solana/web3.js"
import { Either, ParseResult, Schema } from "effect"
import { CreateMintIntent, MintTokenIntent, TransferSplIntent } from "../../schemas/intent.js"
import { describe, expect, it } from "vitest"
import type { AdapterInputError } from "../../src/protocols/adapterError.js"
import type { BuiltTransaction } from "../../src/protocols/builtTransaction.js"
import {
  buildCreateMint,
  buildMintToken,
  buildTransferSpl,
  type MintFacts,
  type TransferSplChainFacts
} from "../../src/protocols/splToken/splToken.js"

const wallet = Keypair.generate()
const recipient = Keypair.generate().publicKey
const mint = Keypair.generate().publicKey
const mintFacts: MintFacts = { programId: TOKEN_PROGRAM_ID.toBase58(), decimals: 6, mintAuthority: wallet.publicKey.toBase58() }
const chain: TransferSplChainFacts = {
  mint: mintFacts,
  sourceTokenBalance: 5_000_000n,
  destinationTokenAccountExists: false,
  destinationAccountProgramId: SystemProgram.programId.toBase58()
}
const ata = (owner: PublicKey) => getAssociatedTokenAddressSync(mint, owner)

const right = (e: Either.Either<BuiltTransaction, AdapterInputError>): BuiltTransaction => {
  if (Either.isLeft(e)) throw e.left
  return e.right
}
const message = (e: Either.Either<BuiltTransaction, AdapterInputError>): string => {
  if (Either.isRight(e)) throw new Error("expected a refusal")
  return e.left.message
}

/** Intents reach a builder decoded by their schema (the registry decodes them once). */
const typed = <A, I>(schema: Schema.Schema<A, I, never>, raw: unknown): A => Schema.decodeUnknownSync(schema)(raw)
/** The first problem the schema reports for a raw intent: [field path, message]. */
const schemaProblem = <A, I>(schema: Schema.Schema<A, I, never>, raw: unknown) => {
  const result = Schema.decodeUnknownEither(schema)(raw)
  if (Either.isRight(result)) throw new Error("expected the schema to refuse")
  const [first] = ParseResult.ArrayFormatter.formatErrorSync(result.left)
  return [first?.path.join("."), first?.message]
}

/** Compiles, signs and serializes the instructions, then reads them back from the wire bytes. */
const roundTrip = (built: BuiltTransaction): TransactionInstruction[] => {
  const tx = new Transaction({ feePayer: wallet.publicKey, recentBlockhash: "11111111111111111111111111111111" })
  tx.add(...built.instructions)
  tx.sign(wallet, ...built.extraSigners)
  return Transaction.from(tx.serialize()).instructions
}

describe("transfer_spl", () => {
  const raw = { destination: recipient.toBase58(), mint: mint.toBase58(), amount: "1250000" }
  const intent = typed(TransferSplIntent, raw)

  it("creates the missing destination ATA idempotently, then transferChecked", () => {
    const built = right(buildTransferSpl({ wallet: wallet.publicKey, intent, chain }))
    expect(built.programIds).toEqual([ASSOCIATED_TOKEN_PROGRAM_ID.toBase58(), TOKEN_PROGRAM_ID.toBase58()])
    expect(built.facts).toEqual({ destination: recipient.toBase58(), tokenMint: mint.toBase58(), amountLamports: null, tokenAmount: 1_250_000n })
    const [create, transfer] = roundTrip(built)

    expect(create.programId.equals(ASSOCIATED_TOKEN_PROGRAM_ID)).toBe(true)
    expect(Array.from(create.data)).toEqual([1]) // CreateIdempotent
    expect(create.keys.map((k) => k.pubkey.toBase58())).toEqual([
      wallet.publicKey.toBase58(),
      ata(recipient).toBase58(),
      recipient.toBase58(),
      mint.toBase58(),
      SystemProgram.programId.toBase58(),
      TOKEN_PROGRAM_ID.toBase58()
    ])

    const decoded = decodeTransferCheckedInstruction(transfer)
    expect(decoded.keys.source.pubkey.equals(ata(wallet.publicKey))).toBe(true)
    expect(decoded.keys.mint.pubkey.equals(mint)).toBe(true)
    expect(decoded.keys.destination.pubkey.equals(ata(recipient))).toBe(true)
    expect(decoded.keys.owner.pubkey.equals(wallet.publicKey)).toBe(true)
    expect(decoded.data.amount).toBe(1_250_000n)
    expect(decoded.data.decimals).toBe(6)
  })

  it("skips the ATA creation when the destination account exists", () => {
    const built = right(buildTransferSpl({ wallet: wallet.publicKey, intent, chain: { ...chain, destinationTokenAccountExists: true } }))
    expect(built.instructions).toHaveLength(1)
    expect(built.programIds).toEqual([TOKEN_PROGRAM_ID.toBase58()])
  })

  it("allows exactly the whole balance and refuses one more", () => {
    expect(Either.isRight(buildTransferSpl({ wallet: wallet.publicKey, intent: { ...intent, amount: 5_000_000n }, chain }))).toBe(true)
    expect(message(buildTransferSpl({ wallet: wallet.publicKey, intent: { ...intent, amount: 5_000_001n }, chain }))).toBe(
      `insufficient token balance: have 5000000, need 5000001 of mint ${mint.toBase58()}`
    )
  })

  it.each([
    ["a missing source token account", { sourceTokenBalance: null }, /wallet has no token account for mint/],
    ["a Token-2022 mint", { mint: { ...mintFacts, programId: TOKEN_2022_PROGRAM_ID.toBase58() } }, /not the SPL Token program/],
    ["a token account as destination", { destinationAccountProgramId: TOKEN_PROGRAM_ID.toBase58() }, /is a token account; give its owner's address/]
  ])("refuses %s", (_name, over, pattern) => {
    expect(message(buildTransferSpl({ wallet: wallet.publicKey, intent, chain: { ...chain, ...over } }))).toMatch(pattern)
  })

  it("refuses an off-curve (PDA) destination owner", () => {
    const pda = ata(recipient) // an ATA address is a PDA
    expect(message(buildTransferSpl({ wallet: wallet.publicKey, intent: { ...intent, destination: pda.toBase58() }, chain }))).toMatch(/off-curve/)
  })

  it("never sees a bad amount or a missing mint: the intent schema refuses them, naming the field", () => {
    expect(schemaProblem(TransferSplIntent, { ...raw, amount: "0" })).toEqual(["amount", "must be greater than 0"])
    expect(schemaProblem(TransferSplIntent, { destination: raw.destination, amount: "1" })[0]).toBe("mint")
  })
})

describe("create_mint", () => {
  const mintKeypair = Keypair.generate()
  const rent = 1_461_600n

  it("creates a new mint account the mint keypair co-signs, then InitializeMint2", () => {
    const built = right(buildCreateMint({ wallet: wallet.publicKey, intent: typed(CreateMintIntent, { decimals: 2, freezeAuthority: recipient.toBase58() }), mintRentExemptMinimum: rent, mintKeypair }))
    expect(built.extraSigners).toEqual([mintKeypair])
    expect(built.programIds).toEqual([SystemProgram.programId.toBase58(), TOKEN_PROGRAM_ID.toBase58()])
    expect(built.facts).toEqual({ destination: mintKeypair.publicKey.toBase58(), tokenMint: mintKeypair.publicKey.toBase58(), amountLamports: rent, tokenAmount: null })
    const [create, init] = roundTrip(built)

    const account = SystemInstruction.decodeCreateAccount(create)
    expect(account.fromPubkey.equals(wallet.publicKey)).toBe(true)
    expect(account.newAccountPubkey.equals(mintKeypair.publicKey)).toBe(true)
    expect(account.space).toBe(MINT_SIZE)
    expect(account.lamports).toBe(Number(rent))
    expect(account.programId.equals(TOKEN_PROGRAM_ID)).toBe(true)

    const decoded = decodeInitializeMint2Instruction(init)
    expect(decoded.keys.mint.pubkey.equals(mintKeypair.publicKey)).toBe(true)
    expect(decoded.data.decimals).toBe(2)
    expect(decoded.data.mintAuthority.equals(wallet.publicKey)).toBe(true)
    expect(decoded.data.freezeAuthority?.equals(recipient)).toBe(true)
  })

  it("needs both signatures: the wallet's alone leaves the mint's missing", () => {
    const built = right(buildCreateMint({ wallet: wallet.publicKey, intent: typed(CreateMintIntent, {}), mintRentExemptMinimum: rent, mintKeypair }))
    const tx = new Transaction({ feePayer: wallet.publicKey, recentBlockhash: "11111111111111111111111111111111" }).add(...built.instructions)
    tx.partialSign(wallet)
    expect(() => tx.serialize()).toThrow(/Missing signature/)
    tx.partialSign(...built.extraSigners)
    expect(Transaction.from(tx.serialize()).signatures).toHaveLength(2)
  })

  it("defaults to 9 decimals and no freeze authority; generates a fresh mint", () => {
    const built = right(buildCreateMint({ wallet: wallet.publicKey, intent: typed(CreateMintIntent, {}), mintRentExemptMinimum: rent }))
    const decoded = decodeInitializeMint2Instruction(built.instructions[1])
    expect(decoded.data.decimals).toBe(9)
    expect(decoded.data.freezeAuthority).toBeNull()
    expect(built.extraSigners).toHaveLength(1)
  })

  it.each([[10], [-1], [2.5], ["6"]])("the intent schema refuses decimals %j", (decimals) => {
    expect(schemaProblem(CreateMintIntent, { decimals })[0]).toBe("decimals")
  })
})

describe("mint_token", () => {
  const mintChain = { mint: mintFacts, destinationTokenAccountExists: false }

  it("mints into the wallet's own ATA by default, creating it idempotently", () => {
    const built = right(buildMintToken({ wallet: wallet.publicKey, intent: typed(MintTokenIntent, { mint: mint.toBase58(), amount: "42" }), chain: mintChain }))
    expect(built.facts.destination).toBe(wallet.publicKey.toBase58())
    const [create, mintTo] = roundTrip(built)
    expect(create.programId.equals(ASSOCIATED_TOKEN_PROGRAM_ID)).toBe(true)
    const decoded = decodeMintToCheckedInstruction(mintTo)
    expect(decoded.keys.mint.pubkey.equals(mint)).toBe(true)
    expect(decoded.keys.destination.pubkey.equals(ata(wallet.publicKey))).toBe(true)
    expect(decoded.keys.authority.pubkey.equals(wallet.publicKey)).toBe(true)
    expect(decoded.data.amount).toBe(42n)
    expect(decoded.data.decimals).toBe(6)
  })

  it("mints to another owner's existing ATA", () => {
    const built = right(
      buildMintToken({ wallet: wallet.publicKey, intent: typed(MintTokenIntent, { mint: mint.toBase58(), amount: 7, destination: recipient.toBase58() }), chain: { ...mintChain, destinationTokenAccountExists: true } })
    )
    expect(built.instructions).toHaveLength(1)
    expect(decodeMintToCheckedInstruction(built.instructions[0]).keys.destination.pubkey.equals(ata(recipient))).toBe(true)
  })

  it("refuses when the wallet is not the mint authority or there is none", () => {
    const intent = typed(MintTokenIntent, { mint: mint.toBase58(), amount: "1" })
    expect(message(buildMintToken({ wallet: wallet.publicKey, intent, chain: { ...mintChain, mint: { ...mintFacts, mintAuthority: recipient.toBase58() } } }))).toMatch(
      /is not the mint authority of/
    )
    expect(message(buildMintToken({ wallet: wallet.publicKey, intent, chain: { ...mintChain, mint: { ...mintFacts, mintAuthority: null } } }))).toMatch(
      /has no mint authority/
    )
  })
})

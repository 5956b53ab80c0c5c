/**
 * cpi_call and custom_instruction_bundle (docs/decisions/instruction-bundles.md): the caller's own
 * instructions, built as given. The wallet is the only signer this service provides, so an instruction
 * that names any other account as a signer (another of our wallets above all) is refused at build:
 * the service never signs for an instruction it did not intend.
 */
import { ComputeBudgetProgram, PublicKey, SystemInstruction, SystemProgram, TransactionInstruction } from "@solana/web3.js"
import { Effect } from "effect"
import { ChainFacts } from "../chain/chainFacts.js"
import type { ChainError } from "../chain/chainClient.js"
import type { InstructionSpec } from "../../schemas/intent.js"
import { AdapterInputError } from "./adapterError.js"
import type { Builders } from "./adapterRequest.js"
import { type BuiltTransaction, builtTransaction } from "./builtTransaction.js"

/** An instruction as the caller wrote it, and where it sits in the intent (for error paths). */
export interface LocatedInstruction {
  readonly spec: InstructionSpec
  /** the intent path of this instruction: "" for cpi_call, "instructions[2]." in a bundle */
  readonly at: string
}

/** The first account, in any instruction, marked as a signer that is not the wallet; null when none. */
export const foreignSigner = (wallet: PublicKey, instructions: ReadonlyArray<LocatedInstruction>) => {
  for (const { spec, at } of instructions) {
    const index = spec.accounts.findIndex((account) => account.isSigner && account.pubkey !== wallet.toBase58())
    if (index >= 0) return { field: `${at}accounts[${index}]`, pubkey: spec.accounts[index]!.pubkey }
  }
  return null
}

export const toInstruction = (spec: InstructionSpec): TransactionInstruction =>
  new TransactionInstruction({
    programId: new PublicKey(spec.programId),
    keys: spec.accounts.map((account) => ({ pubkey: new PublicKey(account.pubkey), isSigner: account.isSigner, isWritable: account.isWritable })),
    data: Buffer.from(spec.data, "base64")
  })

/** SOL the wallet sends by System program transfers and account creations named directly (not by CPI). */
export const systemOutflows = (instructions: ReadonlyArray<TransactionInstruction>): ReadonlyArray<{ readonly to: string; readonly lamports: bigint }> =>
  instructions.flatMap((ix) => {
    if (!ix.programId.equals(SystemProgram.programId)) return []
    try {
      switch (SystemInstruction.decodeInstructionType(ix)) {
        case "Transfer": {
          const t = SystemInstruction.decodeTransfer(ix)
          return [{ to: t.toPubkey.toBase58(), lamports: t.lamports }]
        }
        case "Create": {
          const c = SystemInstruction.decodeCreateAccount(ix)
          return [{ to: c.newAccountPubkey.toBase58(), lamports: BigInt(c.lamports) }]
        }
        default:
          return []
      }
    } catch {
      return [] // malformed data: the simulation fails it
    }
  })

/**
 * The SOL a stored intent's System instructions send (an agent's budget counts it at acceptance);
 * a malformed instruction counts nothing here: decoding refuses it before it is stored.
 */
export const rawIntentSystemOutflow = (specs: ReadonlyArray<unknown>): bigint =>
  specs.reduce<bigint>((sum, spec) => {
    try {
      return sum + systemOutflows([toInstruction(spec as InstructionSpec)]).reduce((total, o) => total + o.lamports, 0n)
    } catch {
      return sum
    }
  }, 0n)

/**
 * Why an instruction cannot run through us, or null: the compute budget is the pipeline's to set (a second
 * one fails the transaction), and a System Assign or Allocate of the wallet would hand its account to
 * another program for good (the wallet could never pay a fee again).
 */
export const refusedInstruction = (wallet: PublicKey, ix: TransactionInstruction): string | null => {
  if (ix.programId.equals(ComputeBudgetProgram.programId)) return "the compute budget is set by the service (limit and priority fee); leave it out"
  if (!ix.programId.equals(SystemProgram.programId)) return null
  try {
    const type = SystemInstruction.decodeInstructionType(ix)
    const target =
      type === "Assign" ? SystemInstruction.decodeAssign(ix).accountPubkey : type === "Allocate" ? SystemInstruction.decodeAllocate(ix).accountPubkey : null
    return target !== null && target.equals(wallet) ? `a System ${type} of the wallet would give its account away; refused` : null
  } catch {
    return null // malformed data: the simulation fails it
  }
}

/** getMultipleAccounts answers at most 100 addresses per call on real clusters. */
const ACCOUNTS_PER_READ = 100

/**
 * Programs the instructions can reach by CPI: a program must be passed as an account to be invoked,
 * so every executable account the instructions name counts, and program_allowlist checks them all.
 */
export const programsNamedAsAccounts = (instructions: ReadonlyArray<LocatedInstruction>): Effect.Effect<ReadonlyArray<string>, ChainError, ChainFacts> =>
  Effect.gen(function* () {
    const facts = yield* ChainFacts
    const addresses = [...new Set(instructions.flatMap(({ spec }) => spec.accounts.map((account) => account.pubkey)))]
    const chunks = Array.from({ length: Math.ceil(addresses.length / ACCOUNTS_PER_READ) }, (_, i) => addresses.slice(i * ACCOUNTS_PER_READ, (i + 1) * ACCOUNTS_PER_READ))
    const read = yield* Effect.forEach(chunks, (chunk) => facts.accounts(chunk))
    return read.flat().flatMap((account, i) => (account?.executable === true ? [addresses[i]!] : []))
  })

export const buildRawInstructions = (
  operation: string,
  protocol: string,
  wallet: PublicKey,
  instructions: ReadonlyArray<LocatedInstruction>,
  cpiPrograms: ReadonlyArray<string> = []
): Effect.Effect<BuiltTransaction, AdapterInputError> => {
  const foreign = foreignSigner(wallet, instructions)
  if (foreign !== null) {
    return Effect.fail(
      new AdapterInputError({
        protocol,
        operation,
        field: foreign.field,
        message:
          `intent.${foreign.field}: ${foreign.pubkey} is marked as a signer; the transaction's wallet ` +
          `${wallet.toBase58()} is the only signer this service provides, and it never signs for another wallet`
      })
    )
  }
  const built = instructions.map(({ spec }) => toInstruction(spec))
  for (const [i, ix] of built.entries()) {
    const why = refusedInstruction(wallet, ix)
    const at = instructions[i]!.at
    if (why !== null) return Effect.fail(new AdapterInputError({ protocol, operation, field: `${at}programId`, message: `intent.${at}programId: ${why}` }))
  }
  // Policy checks one destination and one amount per transaction: the SOL sent by System instructions.
  const outflows = systemOutflows(built)
  const recipients = [...new Set(outflows.map((o) => o.to))]
  if (recipients.length > 1) {
    return Effect.fail(
      new AdapterInputError({
        protocol,
        operation,
        field: "instructions",
        message: `intent.instructions: System transfers to ${recipients.length} recipients (${recipients.join(", ")}); one transaction may send SOL to one recipient, so that address rules see it`
      })
    )
  }
  const lamports = outflows.reduce((sum, o) => sum + o.lamports, 0n)
  const transaction = builtTransaction(built, lamports > 0n ? { destination: recipients[0] ?? null, amountLamports: lamports } : {})
  return Effect.succeed({ ...transaction, programIds: [...new Set([...transaction.programIds, ...cpiPrograms])] })
}

/** The types built from the caller's instructions, for any protocol. */
export const RAW_INSTRUCTION_TYPES: ReadonlySet<string> = new Set(["cpi_call", "custom_instruction_bundle"])

/** Refuses what must not run (signers, budget, wallet reassignment), then reads which named accounts are programs. */
const buildChecked = (operation: string, protocol: string, wallet: PublicKey, instructions: ReadonlyArray<LocatedInstruction>) =>
  Effect.flatMap(buildRawInstructions(operation, protocol, wallet, instructions), () =>
    Effect.flatMap(programsNamedAsAccounts(instructions), (cpiPrograms) => buildRawInstructions(operation, protocol, wallet, instructions, cpiPrograms))
  )

/** Built for whichever protocol the request names: the programs are the caller's, each checked by program_allowlist. */
export const rawInstructionBuilders: Builders = {
  cpi_call: (request) => buildChecked(request.type, request.protocol, request.wallet, [{ spec: request.intent, at: "" }]),
  custom_instruction_bundle: (request) =>
    buildChecked(
      request.type,
      request.protocol,
      request.wallet,
      request.intent.instructions.map((spec, i) => ({ spec, at: `instructions[${i}].` }))
    )
}

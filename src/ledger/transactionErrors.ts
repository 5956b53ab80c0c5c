// Converts litesvm's transaction errors into the JSON a validator serves (serde's externally tagged
// TransactionError) and the English sentences a validator puts into RPC error messages.
import type { FailedTransactionMetadata } from "litesvm"

/** A TransactionError as JSON-RPC shows it: "BlockhashNotFound", {"InstructionError":[0,{"Custom":1}]}, ... */
export type RpcTransactionError = string | { readonly [variant: string]: unknown }

// Order of litesvm's TransactionErrorFieldless / InstructionErrorFieldless const enums (internal.d.ts).
// The enums are declared `const` and are not present at runtime, so the names are kept here.
const TRANSACTION_ERRORS = [
  "AccountInUse", "AccountLoadedTwice", "AccountNotFound", "ProgramAccountNotFound", "InsufficientFundsForFee",
  "InvalidAccountForFee", "AlreadyProcessed", "BlockhashNotFound", "CallChainTooDeep", "MissingSignatureForFee",
  "InvalidAccountIndex", "SignatureFailure", "InvalidProgramForExecution", "SanitizeFailure", "ClusterMaintenance",
  "AccountBorrowOutstanding", "WouldExceedMaxBlockCostLimit", "UnsupportedVersion", "InvalidWritableAccount",
  "WouldExceedMaxAccountCostLimit", "WouldExceedAccountDataBlockLimit", "TooManyAccountLocks",
  "AddressLookupTableNotFound", "InvalidAddressLookupTableOwner", "InvalidAddressLookupTableData",
  "InvalidAddressLookupTableIndex", "InvalidRentPayingAccount", "WouldExceedMaxVoteCostLimit",
  "WouldExceedAccountDataTotalLimit", "MaxLoadedAccountsDataSizeExceeded", "ResanitizationNeeded",
  "InvalidLoadedAccountsDataSizeLimit", "UnbalancedTransaction", "ProgramCacheHitMaxLimit", "CommitCancelled"
] as const

const INSTRUCTION_ERRORS = [
  "GenericError", "InvalidArgument", "InvalidInstructionData", "InvalidAccountData", "AccountDataTooSmall",
  "InsufficientFunds", "IncorrectProgramId", "MissingRequiredSignature", "AccountAlreadyInitialized",
  "UninitializedAccount", "UnbalancedInstruction", "ModifiedProgramId", "ExternalAccountLamportSpend",
  "ExternalAccountDataModified", "ReadonlyLamportChange", "ReadonlyDataModified", "DuplicateAccountIndex",
  "ExecutableModified", "RentEpochModified", "NotEnoughAccountKeys", "AccountDataSizeChanged", "AccountNotExecutable",
  "AccountBorrowFailed", "AccountBorrowOutstanding", "DuplicateAccountOutOfSync", "InvalidError",
  "ExecutableDataModified", "ExecutableLamportChange", "ExecutableAccountNotRentExempt", "UnsupportedProgramId",
  "CallDepth", "MissingAccount", "ReentrancyNotAllowed", "MaxSeedLengthExceeded", "InvalidSeeds", "InvalidRealloc",
  "ComputationalBudgetExceeded", "PrivilegeEscalation", "ProgramEnvironmentSetupFailure", "ProgramFailedToComplete",
  "ProgramFailedToCompile", "Immutable", "IncorrectAuthority", "AccountNotRentExempt", "InvalidAccountOwner",
  "ArithmeticOverflow", "UnsupportedSysvar", "IllegalOwner", "MaxAccountsDataAllocationsExceeded",
  "MaxAccountsExceeded", "MaxInstructionTraceLengthExceeded", "BuiltinProgramsMustConsumeComputeUnits", "BorshIoError"
] as const

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null
}

function instructionErrorToJson(err: unknown): unknown {
  if (typeof err === "number") return INSTRUCTION_ERRORS[err] ?? "GenericError"
  if (isRecord(err) && typeof err.code === "number") return { Custom: err.code }
  if (isRecord(err) && typeof err.msg === "string") return "BorshIoError"
  return "GenericError"
}

export function transactionErrorToJson(failure: FailedTransactionMetadata): RpcTransactionError {
  const err: unknown = failure.err()
  if (typeof err === "number") return TRANSACTION_ERRORS[err] ?? "SanitizeFailure"
  if (!isRecord(err)) return "SanitizeFailure"
  const name = err.constructor?.name ?? ""
  if (name.includes("InstructionError") && typeof err.index === "number" && typeof err.err === "function") {
    return { InstructionError: [err.index, instructionErrorToJson(err.err())] }
  }
  if (name.includes("DuplicateInstruction")) return { DuplicateInstruction: err.index }
  if (name.includes("InsufficientFundsForRent")) return { InsufficientFundsForRent: { account_index: err.accountIndex } }
  if (name.includes("ProgramExecutionTemporarilyRestricted")) {
    return { ProgramExecutionTemporarilyRestricted: { account_index: err.accountIndex } }
  }
  return "SanitizeFailure"
}

const TRANSACTION_SENTENCES: Record<string, string> = {
  AccountInUse: "Account in use",
  AccountLoadedTwice: "Account loaded twice",
  AccountNotFound: "Attempt to debit an account but found no record of a prior credit.",
  ProgramAccountNotFound: "Attempt to load a program that does not exist",
  InsufficientFundsForFee: "Insufficient funds for fee",
  InvalidAccountForFee: "This account may not be used to pay transaction fees",
  AlreadyProcessed: "This transaction has already been processed",
  BlockhashNotFound: "Blockhash not found",
  SignatureFailure: "Transaction did not pass signature verification",
  SanitizeFailure: "Transaction failed to sanitize accounts offsets correctly",
  InvalidProgramForExecution: "This program may not be used for executing instructions"
}

const INSTRUCTION_SENTENCES: Record<string, string> = {
  GenericError: "generic instruction error",
  InvalidArgument: "invalid program argument",
  InvalidInstructionData: "invalid instruction data",
  InvalidAccountData: "invalid account data for instruction",
  AccountDataTooSmall: "account data too small for instruction",
  InsufficientFunds: "insufficient funds for instruction",
  IncorrectProgramId: "incorrect program id for instruction",
  MissingRequiredSignature: "missing required signature for instruction",
  AccountAlreadyInitialized: "instruction requires an uninitialized account",
  UninitializedAccount: "instruction requires an initialized account",
  ComputationalBudgetExceeded: "Computational budget exceeded",
  ProgramFailedToComplete: "Program failed to complete"
}

/** The Display text of a TransactionError, as used in "Transaction simulation failed: <text>". */
export function describeTransactionError(err: RpcTransactionError): string {
  if (typeof err === "string") return TRANSACTION_SENTENCES[err] ?? err
  const ixError = err.InstructionError
  if (Array.isArray(ixError)) {
    const [index, inner] = ixError
    let text: string
    if (typeof inner === "string") text = INSTRUCTION_SENTENCES[inner] ?? inner
    else if (isRecord(inner) && typeof inner.Custom === "number") text = `custom program error: 0x${inner.Custom.toString(16)}`
    else text = "generic instruction error"
    return `Error processing Instruction ${String(index)}: ${text}`
  }
  if ("InsufficientFundsForRent" in err) {
    const detail = err.InsufficientFundsForRent
    const index = isRecord(detail) ? String(detail.account_index) : "?"
    return `Transaction results in an account (${index}) with insufficient funds for rent`
  }
  return JSON.stringify(err)
}

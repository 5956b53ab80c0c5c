// Custom error codes of the escrow program (programs/escrow/escrow.h) and their readable messages.
export const ESCROW_ERRORS = {
  6000: { name: "InvalidInstruction", message: "unknown escrow instruction or malformed instruction data" },
  6001: { name: "OnlyCounterpartyAccepts", message: "only the counterparty can accept this escrow" },
  6002: { name: "OnlyCreatorOrArbiterReleases", message: "only the creator or the arbiter can release this escrow" },
  6003: { name: "OnlyCreatorOrCounterpartyDisputes", message: "only the creator or the counterparty can dispute this escrow" },
  6004: { name: "OnlyArbiterResolves", message: "only the arbiter can resolve this dispute" },
  6005: { name: "OnlyCreatorOrArbiterRefunds", message: "only the creator or the arbiter can refund this escrow" },
  6006: { name: "DeadlineNotReached", message: "the creator can refund an unaccepted escrow only after its deadline" },
  6007: { name: "AcceptedOnlyArbiterRefunds", message: "the escrow was accepted: only the arbiter can refund it now" },
  6008: { name: "DeadlinePassed", message: "the escrow deadline has passed: it can no longer be accepted" },
  6009: { name: "NotAwaitingAcceptance", message: "the escrow is not awaiting acceptance" },
  6010: { name: "NotAccepted", message: "the escrow has not been accepted" },
  6011: { name: "NotDisputed", message: "the escrow is not disputed" },
  6012: { name: "EscrowClosed", message: "the escrow is already closed (completed, refunded or resolved)" },
  6013: { name: "MissingSignature", message: "the acting party did not sign the transaction" },
  6014: { name: "WrongEscrowAddress", message: "the escrow account is not the address derived from creator and escrow id" },
  6015: { name: "EscrowExists", message: "an escrow with this creator and id already exists" },
  6016: { name: "NotAnEscrow", message: "the account is not an escrow of this program" },
  6017: { name: "ZeroAmount", message: "the escrow amount must be greater than zero" },
  6018: { name: "FeeTooHigh", message: "the fee is above the maximum of 1000 bps (10%)" },
  6019: { name: "DeadlineNotInFuture", message: "the deadline must be in the future" },
  6020: { name: "WrongCounterpartyAccount", message: "the counterparty account does not match the escrow" },
  6021: { name: "WrongFeeRecipientAccount", message: "the fee recipient account does not match the escrow" },
  6022: { name: "WrongCreatorAccount", message: "the creator account does not match the escrow" },
  6023: { name: "BadMilestoneCount", message: "a milestone escrow needs between 1 and 8 milestones" },
  6024: { name: "MilestoneSumMismatch", message: "the milestone amounts do not sum to the escrow amount" },
  6025: { name: "MilestoneIndexOutOfRange", message: "there is no milestone with this index" },
  6026: { name: "MilestoneAlreadyReleased", message: "this milestone was already released" },
  6027: { name: "NotMilestoneEscrow", message: "the escrow has no milestones" },
  6028: { name: "InvalidDecision", message: "the decision must be release or refund" },
  6029: { name: "NotEnoughAccounts", message: "the instruction is missing accounts" },
  6030: { name: "AccountNotWritable", message: "an account that receives or holds lamports is not writable" },
  6031: { name: "WrongSystemProgram", message: "the system program account is wrong" },
  6032: { name: "PartiesNotDistinct", message: "creator, counterparty and arbiter must be three different accounts" },
  6033: { name: "ZeroMilestone", message: "every milestone amount must be greater than zero" },
  6034: { name: "ArithmeticOverflow", message: "an amount overflowed" },
  6035: { name: "UnsupportedRent", message: "the cluster's rent configuration is not supported" },
  6036: { name: "InsufficientFunds", message: "the creator cannot pay the amount plus the escrow account's rent" },
  6037: { name: "Disputed", message: "the escrow is disputed: only the arbiter's resolution can settle it" },
  6038: { name: "ClockUnavailable", message: "the ledger clock could not be read" }
} as const satisfies Record<number, { name: string; message: string }>

export type EscrowErrorCode = keyof typeof ESCROW_ERRORS

export const isEscrowErrorCode = (code: number): code is EscrowErrorCode => Object.hasOwn(ESCROW_ERRORS, code)

/** The readable message of a custom error code, or undefined when it is not an escrow error. */
export const escrowErrorMessage = (code: number): string | undefined => (isEscrowErrorCode(code) ? ESCROW_ERRORS[code].message : undefined)

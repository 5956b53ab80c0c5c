// Numbers shared with programs/escrow/escrow.h (instruction tags, statuses, sizes, limits).
export const ESCROW_INSTRUCTION = {
  create: 0,
  accept: 1,
  release: 2,
  refund: 3,
  dispute: 4,
  resolve: 5,
  createMilestone: 6,
  releaseMilestone: 7
} as const

export const ESCROW_STATUS = {
  created: 1,
  accepted: 2,
  completed: 3,
  refunded: 4,
  disputed: 5,
  resolved: 6
} as const
export type EscrowStatus = keyof typeof ESCROW_STATUS

export const ESCROW_DECISION = { release: 1, refund: 2 } as const
export type EscrowDecision = keyof typeof ESCROW_DECISION

export const ESCROW_ACCOUNT_SIZE = 272
export const ESCROW_ACCOUNT_TAG = 1
export const MAX_MILESTONES = 8
export const MAX_FEE_BPS = 1000
/** Milestone index reported by EscrowReleased when everything left was released at once. */
export const WHOLE_REMAINDER = 0xff

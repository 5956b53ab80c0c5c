// Decodes the escrow program's events from transaction logs. The program logs each event with
// sol_log_data as "Program data: <base64 name> <base64 payload>"; payload layouts are in
// programs/escrow/README.md and all start with escrow address, creator and escrow id.
import type { PublicKey } from "@solana/web3.js"
import { ByteReader } from "./byteReader.js"
import { ESCROW_DECISION, ESCROW_STATUS, WHOLE_REMAINDER, type EscrowDecision, type EscrowStatus } from "./layout.js"

interface EventBase {
  readonly escrow: PublicKey
  readonly creator: PublicKey
  readonly escrowId: bigint
}

export type EscrowEvent =
  | { readonly name: "EscrowCreated"; readonly fields: EventBase & {
      readonly counterparty: PublicKey; readonly arbiter: PublicKey; readonly feeRecipient: PublicKey
      readonly amount: bigint; readonly feeBps: number; readonly deadlineUnixSec: bigint; readonly milestoneCount: number; readonly termsHash: string } }
  | { readonly name: "EscrowAccepted"; readonly fields: EventBase & { readonly counterparty: PublicKey } }
  | { readonly name: "EscrowReleased"; readonly fields: EventBase & {
      readonly by: PublicKey; readonly counterparty: PublicKey; readonly toCounterparty: bigint; readonly fee: bigint
      /** null when everything left was released at once. */
      readonly milestoneIndex: number | null; readonly status: EscrowStatus } }
  | { readonly name: "EscrowRefunded"; readonly fields: EventBase & { readonly by: PublicKey; readonly refunded: bigint } }
  | { readonly name: "EscrowDisputed"; readonly fields: EventBase & { readonly by: PublicKey } }
  | { readonly name: "DisputeResolved"; readonly fields: EventBase & {
      readonly arbiter: PublicKey; readonly decision: EscrowDecision; readonly toCounterparty: bigint; readonly fee: bigint; readonly toCreator: bigint } }

export type EscrowEventName = EscrowEvent["name"]

const base = (r: ByteReader): EventBase => ({ escrow: r.pubkey(), creator: r.pubkey(), escrowId: r.u64() })

const statusName = (code: number): EscrowStatus => {
  const found = (Object.keys(ESCROW_STATUS) as EscrowStatus[]).find((k) => ESCROW_STATUS[k] === code)
  if (found === undefined) throw new Error(`unknown status ${code}`)
  return found
}

const decisionName = (code: number): EscrowDecision => {
  const found = (Object.keys(ESCROW_DECISION) as EscrowDecision[]).find((k) => ESCROW_DECISION[k] === code)
  if (found === undefined) throw new Error(`unknown decision ${code}`)
  return found
}

const decoders: { readonly [N in EscrowEventName]: (r: ByteReader) => Extract<EscrowEvent, { name: N }>["fields"] } = {
  EscrowCreated: (r) => ({
    ...base(r),
    counterparty: r.pubkey(),
    arbiter: r.pubkey(),
    feeRecipient: r.pubkey(),
    amount: r.u64(),
    feeBps: r.u16(),
    deadlineUnixSec: r.i64(),
    milestoneCount: r.u8(),
    termsHash: Buffer.from(r.bytes32()).toString("hex")
  }),
  EscrowAccepted: (r) => ({ ...base(r), counterparty: r.pubkey() }),
  EscrowReleased: (r) => {
    const fields = { ...base(r), by: r.pubkey(), counterparty: r.pubkey(), toCounterparty: r.u64(), fee: r.u64() }
    const index = r.u8()
    return { ...fields, milestoneIndex: index === WHOLE_REMAINDER ? null : index, status: statusName(r.u8()) }
  },
  EscrowRefunded: (r) => ({ ...base(r), by: r.pubkey(), refunded: r.u64() }),
  EscrowDisputed: (r) => ({ ...base(r), by: r.pubkey() }),
  DisputeResolved: (r) => ({
    ...base(r),
    arbiter: r.pubkey(),
    decision: decisionName(r.u8()),
    toCounterparty: r.u64(),
    fee: r.u64(),
    toCreator: r.u64()
  })
}

const isEventName = (name: string): name is EscrowEventName => Object.hasOwn(decoders, name)

const PROGRAM_DATA = "Program data: "

/** Decodes one "Program data:" line; undefined when it is not an escrow event. */
export const decodeEscrowEventLine = (line: string): EscrowEvent | undefined => {
  if (!line.startsWith(PROGRAM_DATA)) return undefined
  const parts = line.slice(PROGRAM_DATA.length).trim().split(" ")
  if (parts.length !== 2) return undefined
  const name = Buffer.from(parts[0], "base64").toString("utf8")
  if (!isEventName(name)) return undefined
  const payload = new Uint8Array(Buffer.from(parts[1], "base64"))
  const reader = new ByteReader(payload)
  try {
    const fields = decoders[name](reader)
    if (reader.offset !== payload.length) return undefined
    return { name, fields } as EscrowEvent
  } catch {
    return undefined
  }
}

const INVOKE = /^Program (\S+) invoke \[\d+\]$/
const EXIT = /^Program (\S+) (success|failed)/

/** All escrow events in a transaction's logs. With `programId`, only lines logged while that
 * program was executing count (another program could log look-alike data). */
export const decodeEscrowEvents = (logs: ReadonlyArray<string>, programId?: PublicKey): EscrowEvent[] => {
  const stack: string[] = []
  const wanted = programId?.toBase58()
  const events: EscrowEvent[] = []
  for (const line of logs) {
    const invoke = INVOKE.exec(line)
    if (invoke !== null) {
      stack.push(invoke[1])
      continue
    }
    if (EXIT.test(line)) {
      stack.pop()
      continue
    }
    if (wanted !== undefined && stack[stack.length - 1] !== wanted) continue
    const event = decodeEscrowEventLine(line)
    if (event !== undefined) events.push(event)
  }
  return events
}

/**
 * The CLI's commands: each is one call of the service (or a create followed by a watch), answered as the service's
 * envelope so output and exit code follow it. Arguments are checked here only for presence and JSON form; the
 * service judges their meaning (and refuses unknown fields) as for any caller.
 */
import type { CustodyClient } from "../../sdk/src/index.js"
import type { Answer } from "../../sdk/src/http.js"
import { watchTransaction } from "./watch.js"

export type Flags = Readonly<Record<string, string | boolean | undefined>>

export class UsageError extends Error {}

export interface CommandContext {
  readonly custody: CustodyClient
  readonly flags: Flags
  readonly positionals: ReadonlyArray<string>
  /** Prints a line of the live display (`tx watch`); silent under --json. */
  readonly print: (line: string) => void
}

type Command = (context: CommandContext) => Promise<Answer<unknown>>

const required = (flags: Flags, name: string): string => {
  const value = flags[name]
  if (typeof value !== "string" || value === "") throw new UsageError(`--${name} is required`)
  return value
}

const optional = (flags: Flags, name: string): string | undefined => {
  const value = flags[name]
  return typeof value === "string" ? value : undefined
}

const idArgument = (context: CommandContext, what: string): string => {
  const id = context.positionals[0]
  if (id === undefined) throw new UsageError(`the ${what} id is required`)
  return id
}

const json = (flags: Flags, name: string): unknown => {
  const text = required(flags, name)
  try {
    return JSON.parse(text) as unknown
  } catch {
    throw new UsageError(`--${name} must be JSON`)
  }
}

const integer = (flags: Flags, name: string): number | undefined => {
  const text = optional(flags, name)
  if (text === undefined) return undefined
  const value = Number(text)
  if (!Number.isSafeInteger(value) || value < 0) throw new UsageError(`--${name} must be a non-negative integer`)
  return value
}

/** A comma-separated list flag: `--scopes transactions,wallets:read`. */
const list = (flags: Flags, name: string): Array<string> =>
  required(flags, name)
    .split(",")
    .map((part) => part.trim())
    .filter((part) => part !== "")

const enc = encodeURIComponent

/**
 * A create's body with its idempotency key (`--idempotency-key`, else a new one), sent again after a lost answer:
 * the service answers the repeat with what the first made, never a second one.
 */
const keyed = (flags: Flags, body: Record<string, unknown>) =>
  ({ body: { ...body, idempotencyKey: optional(flags, "idempotency-key") ?? globalThis.crypto.randomUUID() }, idempotent: true }) as const

/** A transaction's envelope as `tx get` answers it, after a watch or a wait. */
const readTransaction = (custody: CustodyClient, txId: string) => custody.transport.request("GET", `/api/v1/transactions/${enc(txId)}`)

export const COMMANDS: Readonly<Record<string, Readonly<Record<string, Command>>>> = {
  health: { "": ({ custody }) => custody.transport.request("GET", "/health") },
  wallets: {
    create: ({ custody, flags }) => {
      const fund = integer(flags, "fund")
      const label = optional(flags, "label")
      return custody.transport.request("POST", "/api/v1/wallets", keyed(flags, { ...(label === undefined ? {} : { label }), ...(fund === undefined ? {} : { autoFund: true, fundLamports: fund }) }))
    },
    list: ({ custody, flags }) => custody.transport.request("GET", "/api/v1/wallets", { query: { limit: integer(flags, "limit"), offset: integer(flags, "offset") } }),
    get: (context) => context.custody.transport.request("GET", `/api/v1/wallets/${enc(idArgument(context, "wallet"))}`),
    balance: (context) => context.custody.transport.request("GET", `/api/v1/wallets/${enc(idArgument(context, "wallet"))}/balance`)
  },
  tx: {
    create: async (context) => {
      const { custody, flags } = context
      const created = await custody.transport.request<{ readonly id?: string }>("POST", "/api/v1/transactions", {
        query: { waitMs: flags.watch === true ? 0 : (integer(flags, "wait-ms") ?? 30_000) },
        ...keyed(flags, {
          walletId: required(flags, "wallet"),
          type: required(flags, "type"),
          protocol: required(flags, "protocol"),
          intent: json(flags, "intent"),
          ...(flags["require-approval"] === true ? { requireApproval: true } : {}),
          ...(optional(flags, "agent") === undefined ? {} : { agentId: optional(flags, "agent") })
        })
      })
      const txId = created.envelope.data?.id
      if (flags.watch !== true || typeof txId !== "string") return created
      await watchTransaction(custody, txId, context.print)
      return readTransaction(custody, txId)
    },
    get: (context) => readTransaction(context.custody, idArgument(context, "transaction")),
    approve: (context) => {
      const previewHash = optional(context.flags, "preview-hash")
      const url = `/api/v1/transactions/${enc(idArgument(context, "transaction"))}/approve`
      // Pinned to the preview shown, a repeat after a lost answer cannot approve another one: safe to send again.
      return context.custody.transport.request("POST", url, previewHash === undefined ? {} : { body: { previewHash }, idempotent: true })
    },
    reject: (context) => {
      const reason = optional(context.flags, "reason")
      return context.custody.transport.request("POST", `/api/v1/transactions/${enc(idArgument(context, "transaction"))}/reject`, { body: reason === undefined ? {} : { reason }, idempotent: true })
    },
    retry: (context) => context.custody.transport.request("POST", `/api/v1/transactions/${enc(idArgument(context, "transaction"))}/retry`),
    watch: async (context) => {
      const txId = idArgument(context, "transaction")
      await watchTransaction(context.custody, txId, context.print)
      return readTransaction(context.custody, txId)
    },
    list: ({ custody, flags }) =>
      custody.transport.request("GET", `/api/v1/wallets/${enc(required(flags, "wallet"))}/transactions`, {
        query: { status: optional(flags, "status"), limit: integer(flags, "limit"), offset: integer(flags, "offset") }
      }),
    pending: ({ custody, flags }) => custody.transport.request("GET", `/api/v1/wallets/${enc(required(flags, "wallet"))}/pending-approvals`)
  },
  policies: {
    create: ({ custody, flags }) =>
      custody.transport.request("POST", "/api/v1/policies", keyed(flags, {
        walletId: required(flags, "wallet"), name: required(flags, "name"), rules: json(flags, "rules"), ...(flags.inactive === true ? { active: false } : {})
      })),
    list: ({ custody, flags }) =>
      custody.transport.request("GET", "/api/v1/policies", { query: { walletId: optional(flags, "wallet"), limit: integer(flags, "limit") } }),
    get: (context) => context.custody.transport.request("GET", `/api/v1/policies/${enc(idArgument(context, "policy"))}`)
  },
  keys: {
    issue: ({ custody, flags }) => {
      const agent = optional(flags, "agent")
      const expiresAt = optional(flags, "expires-at")
      const label = optional(flags, "label")
      // keyed: sent again after a lost answer, it makes no second key (the service's 409 names the first)
      return custody.transport.request("POST", "/api/v1/keys", keyed(flags, {
        scopes: list(flags, "scopes"),
        ...(agent === undefined ? {} : { agentId: agent }),
        ...(expiresAt === undefined ? {} : { expiresAt }),
        ...(label === undefined ? {} : { label })
      }))
    },
    list: ({ custody, flags }) =>
      custody.transport.request("GET", "/api/v1/keys", {
        query: { status: optional(flags, "status"), agentId: optional(flags, "agent"), limit: integer(flags, "limit"), offset: integer(flags, "offset") }
      }),
    get: (context) => context.custody.transport.request("GET", `/api/v1/keys/${enc(idArgument(context, "key"))}`),
    revoke: (context) => {
      const reason = optional(context.flags, "reason")
      return context.custody.transport.request("POST", `/api/v1/keys/${enc(idArgument(context, "key"))}/revoke`, { body: reason === undefined ? {} : { reason } })
    },
    rotate: (context) => {
      const { flags } = context
      const expiresAt = optional(flags, "expires-at")
      const label = optional(flags, "label")
      return context.custody.transport.request("POST", `/api/v1/keys/${enc(idArgument(context, "key"))}/rotate`, {
        body: {
          graceSeconds: integer(flags, "grace-seconds") ?? 0,
          ...(expiresAt === undefined ? {} : { expiresAt }),
          ...(label === undefined ? {} : { label })
        }
      })
    }
  },
  agents: {
    create: ({ custody, flags }) => {
      const intents = optional(flags, "intents")
      const budget = optional(flags, "budget")
      return custody.transport.request("POST", "/api/v1/agents", keyed(flags, {
        name: required(flags, "name"),
        ...(optional(flags, "wallet") === undefined ? {} : { walletId: optional(flags, "wallet") }),
        ...(optional(flags, "mode") === undefined ? {} : { executionMode: optional(flags, "mode") }),
        ...(intents === undefined ? {} : { allowedIntents: list(flags, "intents") }),
        ...(budget === undefined ? {} : { budgetLamports: budget })
      }))
    },
    list: ({ custody }) => custody.transport.request("GET", "/api/v1/agents"),
    get: (context) => context.custody.transport.request("GET", `/api/v1/agents/${enc(idArgument(context, "agent"))}`),
    budget: (context) => context.custody.transport.request("GET", `/api/v1/agents/${enc(idArgument(context, "agent"))}/budget`),
    start: (context) => context.custody.transport.request("POST", `/api/v1/agents/${enc(idArgument(context, "agent"))}/start`),
    stop: (context) => context.custody.transport.request("POST", `/api/v1/agents/${enc(idArgument(context, "agent"))}/stop`),
    resume: (context) => context.custody.transport.request("POST", `/api/v1/agents/${enc(idArgument(context, "agent"))}/resume`),
    pause: (context) => {
      const reason = optional(context.flags, "reason")
      return context.custody.transport.request("POST", `/api/v1/agents/${enc(idArgument(context, "agent"))}/pause`, { body: reason === undefined ? {} : { reason } })
    }
  },
  webhooks: {
    create: ({ custody, flags }) => {
      const description = optional(flags, "description")
      return custody.transport.request("POST", "/api/v1/webhooks", keyed(flags, {
        url: required(flags, "hook-url"), eventTypes: list(flags, "events"), ...(description === undefined ? {} : { description })
      }))
    },
    list: ({ custody, flags }) => custody.transport.request("GET", "/api/v1/webhooks", { query: { limit: integer(flags, "limit"), offset: integer(flags, "offset") } }),
    get: (context) => context.custody.transport.request("GET", `/api/v1/webhooks/${enc(idArgument(context, "webhook"))}`),
    delete: (context) => context.custody.transport.request("DELETE", `/api/v1/webhooks/${enc(idArgument(context, "webhook"))}`),
    // A rotate whose answer was lost is sent again: its secret was seen by no one, and the last one answered is in force.
    rotate: (context) => context.custody.transport.request("POST", `/api/v1/webhooks/${enc(idArgument(context, "webhook"))}/rotate-secret`, { idempotent: true }),
    deliveries: (context) =>
      context.custody.transport.request("GET", `/api/v1/webhooks/${enc(idArgument(context, "webhook"))}/deliveries`, {
        query: { status: optional(context.flags, "status"), limit: integer(context.flags, "limit"), offset: integer(context.flags, "offset") }
      }),
    redeliver: (context) => {
      const deliveryId = context.positionals[1]
      if (deliveryId === undefined) throw new UsageError("the delivery id is required")
      return context.custody.transport.request("POST", `/api/v1/webhooks/${enc(idArgument(context, "webhook"))}/deliveries/${enc(deliveryId)}/redeliver`)
    }
  }
}

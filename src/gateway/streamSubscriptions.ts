/**
 * What one stage-stream client wants to see. A client subscribes to transaction, wallet and agent ids
 * (query parameters at connect time, or `subscribe` / `unsubscribe` messages later); an event is sent
 * when it matches ANY subscribed id. With no id at all the client sees every event of its tenant.
 * Tenancy (and an agent key's own agent) is checked first and separately: a subscription never widens
 * what the caller may read.
 */
import { Effect, Schema } from "effect"
import { Uuid } from "../../schemas/common.js"
import type { StageEvent } from "./stageEventFeed.js"
import { actingAgent, canSee, type CallerInfo } from "./caller.js"
import { decodeWith } from "./request.js"

export interface Subscriptions {
  /** True until the client names an id, and again after a bare `subscribe`. */
  all: boolean
  readonly txIds: Set<string>
  readonly walletIds: Set<string>
  readonly agentIds: Set<string>
}

const Ids = {
  txId: Schema.optional(Uuid),
  walletId: Schema.optional(Uuid),
  agentId: Schema.optional(Uuid)
}

/** The connect URL's query: the ids, and the credentials a browser cannot send as headers (streamUpgrade.ts). */
const SubscriptionQuery = Schema.Struct({ ...Ids, apiKey: Schema.optional(Schema.String), tenantId: Schema.optional(Schema.String) })

/** A client message. A bare `subscribe` means everything; a bare `unsubscribe` means nothing. */
export const SubscriptionMessage = Schema.Struct({
  action: Schema.Literal("subscribe", "unsubscribe"),
  ...Ids
})
export type SubscriptionMessage = typeof SubscriptionMessage.Type

type Named = { readonly txId?: string | undefined; readonly walletId?: string | undefined; readonly agentId?: string | undefined }

const namesAny = (ids: Named) => ids.txId !== undefined || ids.walletId !== undefined || ids.agentId !== undefined

/** Subscriptions from the connect URL's query; a malformed id or an unknown parameter is a ValidationError naming it. */
export const subscriptionsFromQuery = (query: URLSearchParams) =>
  Effect.map(
    decodeWith(SubscriptionQuery, Object.fromEntries(query.entries())),
    (ids): Subscriptions => ({
      all: !namesAny(ids),
      txIds: new Set(ids.txId === undefined ? [] : [ids.txId]),
      walletIds: new Set(ids.walletId === undefined ? [] : [ids.walletId]),
      agentIds: new Set(ids.agentId === undefined ? [] : [ids.agentId])
    })
  )

/** Ids one connection may name at once: each costs memory for as long as it is open, and a read after a gap. */
export const MAX_SUBSCRIBED_IDS = 1_000

const subscribedIds = (subscriptions: Subscriptions) => subscriptions.txIds.size + subscriptions.walletIds.size + subscriptions.agentIds.size

/** Applies a client message in place; a subscription past MAX_SUBSCRIBED_IDS changes nothing and answers why. */
export const applyMessage = (subscriptions: Subscriptions, message: SubscriptionMessage): string | undefined => {
  const subscribe = message.action === "subscribe"
  if (!namesAny(message)) {
    subscriptions.all = subscribe
    if (!subscribe) {
      subscriptions.txIds.clear()
      subscriptions.walletIds.clear()
      subscriptions.agentIds.clear()
    }
    return undefined
  }
  const pairs: Array<[Set<string>, string | undefined, string]> = [
    [subscriptions.txIds, message.txId, "txId"],
    [subscriptions.walletIds, message.walletId, "walletId"],
    [subscriptions.agentIds, message.agentId, "agentId"]
  ]
  if (subscribe) {
    const added = pairs.filter(([set, id]) => id !== undefined && !set.has(id))
    if (added.length > 0 && subscribedIds(subscriptions) + added.length > MAX_SUBSCRIBED_IDS) {
      return `${added[0]![2]}: at most ${MAX_SUBSCRIBED_IDS} ids per connection; unsubscribe some first, or subscribe to a wallet or agent`
    }
  }
  for (const [set, id] of pairs) {
    if (id === undefined) continue
    if (subscribe) set.add(id)
    else set.delete(id)
  }
  // Naming an id narrows a client that was seeing everything.
  if (subscribe) subscriptions.all = false
  return undefined
}

/** Whether the caller may see the event (its tenant's; an agent's credential only its agent's) and asked for it. */
export const wants = (caller: CallerInfo, subscriptions: Subscriptions, event: StageEvent): boolean =>
  canSee(caller, event.tenantId) &&
  (actingAgent(caller) === null || event.agentId === actingAgent(caller)) &&
  (subscriptions.all ||
    subscriptions.txIds.has(event.txId) ||
    subscriptions.walletIds.has(event.walletId) ||
    (event.agentId !== null && subscriptions.agentIds.has(event.agentId)))

/** The subscriptions as the client is told them (acknowledgements). */
export const describeSubscriptions = (subscriptions: Subscriptions) => ({
  all: subscriptions.all,
  txIds: [...subscriptions.txIds],
  walletIds: [...subscriptions.walletIds],
  agentIds: [...subscriptions.agentIds]
})

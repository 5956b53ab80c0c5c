/** The keys component's side of the gateway's key ring (gateway/keyRing.ts). */
import { Effect, Layer } from "effect"
import { KeyRing } from "../gateway/keyRing.js"
import { IssuedKeys } from "./issuedKeys.js"
import { KeyUsage } from "./keyUsage.js"

export const KeyRingLive = Layer.effect(
  KeyRing,
  Effect.gen(function* () {
    const issued = yield* IssuedKeys
    const usage = yield* KeyUsage
    return { find: issued.find, isCurrent: issued.isCurrent, recordUse: usage.recordUse, recordFailure: usage.recordFailure }
  })
)

/**
 * The protocol registry as a Test layer, for unit tests that start neither the application nor a ledger:
 * the adapters with the local ledger's program ids, healthy when they have builders (as on a ledger where
 * every program is deployed), so code that reads the registry is tested without the chain.
 */
import { Effect, Layer } from "effect"
import type { ProtocolHealth } from "../../schemas/protocol.js"
import { ProtocolHealthCheck } from "./protocolHealth.js"
import { findAdapter, PROTOCOL_IDS, protocolRegistry } from "./registry.js"

export const ProtocolHealthCheckTest = Layer.sync(ProtocolHealthCheck, () => {
  const registry = protocolRegistry()
  const healthOf = (protocol: string): ProtocolHealth | undefined => {
    const adapter = findAdapter(registry, protocol)
    return adapter === undefined ? undefined : { protocol: adapter.protocol, ok: adapter.implemented }
  }
  return ProtocolHealthCheck.make({
    registry,
    check: (protocol) => Effect.succeed(healthOf(protocol)),
    checkAll: Effect.succeed(PROTOCOL_IDS.flatMap((id) => healthOf(id) ?? []))
  })
})

/**
 * The TCP ports this service listens on: every configured port of its components (the split deployment's
 * too; 0 means "pick one" and is left out) and the gateway's actual port, added once it listens (it may
 * have been picked). Webhook subscriptions may not target them (src/webhooks/selfTarget.ts): a delivery
 * to our own gateway counts as a failed authentication from loopback and locks every tenant out.
 */
import * as HttpServer from "@effect/platform/HttpServer"
import { Effect, Layer } from "effect"
import { AppConfig } from "../config.js"

const portOf = (url: URL) => (url.port !== "" ? Number(url.port) : url.protocol === "https:" ? 443 : 80)

export class ListeningPorts extends Effect.Service<ListeningPorts>()("ListeningPorts", {
  effect: Effect.gen(function* () {
    const config = yield* AppConfig
    const ports = new Set(Object.values(config.ports).filter((port) => port > 0))
    // the local ledger's PubSub beside its RPC port (src/ledger/server.ts)
    if (config.ports.ledger > 0) ports.add(config.ports.ledger + 1)

    const add = (port: number) => Effect.sync(() => void ports.add(port))
    /** Whether `url`'s port (its scheme's default when it names none) is one of ours. */
    const isOurPort = (url: URL) => ports.has(portOf(url))
    return { add, isOurPort }
  })
}) {}

/** Records the gateway's actual port once its server is up (provide it the gateway's layer). */
export const RecordGatewayPortLive = Layer.effectDiscard(
  Effect.gen(function* () {
    const server = yield* HttpServer.HttpServer
    if (server.address._tag === "TcpAddress") yield* (yield* ListeningPorts).add(server.address.port)
  })
)

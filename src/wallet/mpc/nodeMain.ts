/**
 * `npm run start:mpc-node`: one mpc node as its own process. It holds only its own node secret
 * (WALLET_MPC_NODE_SECRET) and its shares under DATA_DIR/mpc/node-<n>, and answers the coordinator
 * (the service or wallet engine with WALLET_MPC_NODE_URLS) on WALLET_MPC_NODE_HOST:WALLET_MPC_NODE_PORT
 * with the shared WALLET_MPC_INTERNAL_TOKEN. See docs/decisions/custody.md.
 */
import * as HttpServer from "@effect/platform/HttpServer"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Cause, Config, ConfigProvider, Effect, Layer, Redacted } from "effect"
import { MpcNode } from "./mpcNode.js"
import { mpcNodeServerLayer } from "./nodeServer.js"
import { DEFAULT_DATA_DIR } from "../../dataDir.js"

const nonEmptySecret = (name: string) =>
  Config.redacted(name).pipe(Config.validate({ message: `${name} must not be empty`, validation: (s) => Redacted.value(s).trim() !== "" }))

const nodeConfig = Config.all({
  index: Config.integer("WALLET_MPC_NODE_INDEX").pipe(Config.validate({ message: "WALLET_MPC_NODE_INDEX must be 1, 2 or 3", validation: (i) => i >= 1 && i <= 3 })),
  secret: nonEmptySecret("WALLET_MPC_NODE_SECRET"),
  token: nonEmptySecret("WALLET_MPC_INTERNAL_TOKEN"),
  host: Config.string("WALLET_MPC_NODE_HOST").pipe(Config.withDefault("127.0.0.1")),
  port: Config.integer("WALLET_MPC_NODE_PORT").pipe(
    Config.withDefault(3010),
    Config.validate({ message: "WALLET_MPC_NODE_PORT must be a port number (0-65535)", validation: (p) => p >= 0 && p < 65536 })
  ),
  dataDir: Config.string("DATA_DIR").pipe(Config.withDefault(DEFAULT_DATA_DIR))
})

const MpcNodeProcessLive = Layer.unwrapEffect(
  Effect.gen(function* () {
    const config = yield* nodeConfig
    const node = new MpcNode(config.index, Redacted.value(config.secret), config.dataDir)
    const announce = Effect.gen(function* () {
      const address = (yield* HttpServer.HttpServer).address
      const port = address._tag === "TcpAddress" ? address.port : config.port
      yield* Effect.sync(() => console.log(`agent-custody mpc node ${config.index} listening on http://${config.host}:${port}`))
    })
    return Layer.effectDiscard(announce).pipe(
      Layer.provideMerge(mpcNodeServerLayer({ node, token: Redacted.value(config.token), host: config.host, port: config.port }))
    )
  })
)

const environment = Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined)

Layer.launch(MpcNodeProcessLive).pipe(
  Effect.withConfigProvider(ConfigProvider.fromMap(new Map(environment))),
  Effect.catchAllCause((cause) =>
    Cause.isInterruptedOnly(cause)
      ? Effect.void
      : Effect.sync(() => {
          console.error(`agent-custody mpc node could not start:\n${Cause.pretty(cause)}`)
          process.exitCode = 1
        })
  ),
  NodeRuntime.runMain
)

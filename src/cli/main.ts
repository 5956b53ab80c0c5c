/**
 * `agent-custody` (npx agent-custody ...): the operators' command line over the service's API, through the SDK.
 *
 *   agent-custody wallets create --label ops --fund 1000000000
 *   agent-custody tx create --wallet <id> --type transfer_sol --protocol system-program \
 *     --intent '{"destination":"<address>","lamports":1000000}' --watch
 *   agent-custody tx approve <id> --preview-hash <approval.previewHash>
 *
 * The service is CUSTODY_URL (or --url; default http://127.0.0.1:3000) and the key CUSTODY_API_KEY (or
 * --api-key). `--json` prints the service's envelope as it answered; the exit code follows it (exitCodes.ts).
 */
import { parseArgs } from "node:util"
import { CustodyClient } from "../../sdk/src/index.js"
import { COMMANDS, type Flags, UsageError } from "./commands.js"
import { EXIT, exitCodeOf } from "./exitCodes.js"
import { describeFailure, render } from "./render.js"

const USAGE = `usage: agent-custody <command> [arguments] [--json] [--url URL] [--api-key KEY] [--tenant TENANT]

  health
  wallets create [--label L] [--fund LAMPORTS] [--idempotency-key K] | list [--limit N] | get <id> | balance <id>
  tx create --wallet ID --type TYPE --protocol P --intent JSON [--idempotency-key K] [--require-approval] [--agent ID] [--wait-ms N | --watch]
  tx get <id> | approve <id> [--preview-hash H] | reject <id> [--reason R] | retry <id> | watch <id>
  tx list --wallet ID [--status S] | pending --wallet ID
  policies create --wallet ID --name N --rules JSON [--inactive] [--idempotency-key K] | list [--wallet ID] | get <id>
  agents create --name N [--wallet ID] [--budget LAMPORTS] [--intents a,b] [--mode autonomous|supervised] [--idempotency-key K]
  agents list | get <id> | budget <id> | start <id> | stop <id> | pause <id> [--reason R] | resume <id>
  keys issue --scopes a,b [--agent ID] [--expires-at ISO] [--label L] [--idempotency-key K] | list [--status S] [--agent ID] | get <id>
  keys revoke <id> [--reason R] | rotate <id> [--grace-seconds N] [--expires-at ISO] [--label L]
  webhooks create --hook-url URL --events a,b [--description D] [--idempotency-key K] | list | get <id> | delete <id>
  webhooks rotate <id> | deliveries <id> [--status pending|processing|delivered|dead] | redeliver <id> <deliveryId>

creates carry an idempotency key (a new one unless --idempotency-key gives it) and are sent again after a lost
answer: the service answers the repeat with what the first made

exit codes: 0 success, 2 VALIDATION_ERROR, 3 POLICY_VIOLATION, 4 PIPELINE_ERROR, 5 CONFIRMATION_FAILED,
64 bad arguments, 69 the service could not be reached`

const OPTIONS = {
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
  url: { type: "string" },
  "api-key": { type: "string" },
  tenant: { type: "string" },
  label: { type: "string" },
  fund: { type: "string" },
  limit: { type: "string" },
  offset: { type: "string" },
  wallet: { type: "string" },
  type: { type: "string" },
  protocol: { type: "string" },
  intent: { type: "string" },
  "idempotency-key": { type: "string" },
  "require-approval": { type: "boolean" },
  agent: { type: "string" },
  "wait-ms": { type: "string" },
  watch: { type: "boolean" },
  reason: { type: "string" },
  status: { type: "string" },
  name: { type: "string" },
  rules: { type: "string" },
  inactive: { type: "boolean" },
  budget: { type: "string" },
  intents: { type: "string" },
  mode: { type: "string" },
  scopes: { type: "string" },
  "expires-at": { type: "string" },
  "grace-seconds": { type: "string" },
  "preview-hash": { type: "string" },
  "hook-url": { type: "string" },
  events: { type: "string" },
  description: { type: "string" }
} as const

const run = async (argv: ReadonlyArray<string>): Promise<number> => {
  let parsed: { values: Flags; positionals: Array<string> }
  try {
    parsed = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true })
  } catch (error) {
    console.error(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`)
    return EXIT.usage
  }
  const { values: flags, positionals } = parsed
  const [group = "", action = "", ...rest] = positionals
  if (flags.help === true || group === "") {
    console.log(USAGE)
    return flags.help === true ? EXIT.ok : EXIT.usage
  }
  const commands = COMMANDS[group]
  const command = commands?.[group === "health" ? "" : action]
  if (command === undefined) {
    console.error(`unknown command: ${[group, action].filter((part) => part !== "").join(" ")}\n${USAGE}`)
    return EXIT.usage
  }
  const apiKey = (typeof flags["api-key"] === "string" ? flags["api-key"] : process.env.CUSTODY_API_KEY) ?? ""
  if (apiKey === "" && group !== "health") {
    console.error("an API key is needed: --api-key or CUSTODY_API_KEY (npm start prints a development key)")
    return EXIT.usage
  }
  const tenant = typeof flags.tenant === "string" ? flags.tenant : process.env.CUSTODY_TENANT_ID
  const custody = new CustodyClient({
    baseUrl: (typeof flags.url === "string" ? flags.url : process.env.CUSTODY_URL) ?? "http://127.0.0.1:3000",
    apiKey,
    ...(tenant === undefined || tenant === "" ? {} : { tenantId: tenant })
  })
  const json = flags.json === true
  try {
    const { httpStatus, envelope } = await command({
      custody,
      flags,
      positionals: group === "health" ? [action, ...rest].filter((part) => part !== "") : rest,
      print: (line) => (json ? undefined : console.log(line))
    })
    if (json) console.log(JSON.stringify(envelope, null, 2))
    else if (envelope.status === "success" || envelope.data !== null) {
      for (const line of render(envelope.data)) console.log(line)
      if (envelope.status === "failure") console.error(describeFailure(envelope, httpStatus))
    } else console.error(describeFailure(envelope, httpStatus))
    return exitCodeOf(envelope)
  } catch (error) {
    if (error instanceof UsageError) {
      console.error(`${error.message}\n${USAGE}`)
      return EXIT.usage
    }
    // No answer: the service (or its stage stream) could not be reached.
    console.error(`error: ${error instanceof Error ? error.message : String(error)}`)
    return EXIT.unreachable
  }
}

process.exitCode = await run(process.argv.slice(2))

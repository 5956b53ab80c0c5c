/**
 * The operators' CLI (issue 32), run as a process against a local service: wallets, transactions (create with a
 * live stage display, get, approve, reject, retry, watch), policies, agents, API keys, webhooks and health; `--json`
 * prints the envelope; the exit code follows it (0 success, 2 VALIDATION_ERROR, 3 POLICY_VIOLATION, 4 PIPELINE_ERROR, 64 bad
 * arguments, 69 unreachable). And `npx agent-custody` reaches it through the package's bin, which runs the CLI's build
 * (dist/cli.js, made once per test run with the service's) while it is current: bin.test.ts shows both ways.
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { beforeAll, describe, expect, it } from "vitest"
import { currentBuild } from "../../src/programBuild.mjs"
import { useServiceWithLedger } from "../support/harness.js"
import { PROJECT_ROOT } from "../support/processes.js"
import { ADMIN_KEY } from "../support/service.js"
import { buildOnceForThisRun } from "../support/serviceBuild.js"

beforeAll(buildOnceForThisRun)
const env = useServiceWithLedger({ env: { AGENT_SCHEDULER_ENABLED: "false" } })
const BIN = path.join(PROJECT_ROOT, "src/cli/bin.mjs")
const DESTINATION = "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin"

interface Run {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

const run = (args: ReadonlyArray<string>, options: { readonly command?: ReadonlyArray<string>; readonly env?: Record<string, string> } = {}) =>
  new Promise<Run>((resolve) => {
    const [command, ...prefix] = options.command ?? [process.execPath, BIN]
    const child = spawn(command!, [...prefix, ...args], {
      cwd: PROJECT_ROOT,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? os.tmpdir(), CUSTODY_URL: env.service.baseUrl, CUSTODY_API_KEY: ADMIN_KEY, ...options.env },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
    // "close", not "exit": exit can come before the pipes are read to their end.
    child.once("close", (code) => resolve({ code, stdout, stderr }))
  })

/** The `data` of a `--json` run. */
const dataOf = <D>(result: Run): D => (JSON.parse(result.stdout) as { data: D }).data

const fundedWallet = async (lamports = 1_000_000_000) => {
  const created = await run(["wallets", "create", "--label", "cli", "--fund", String(lamports), "--json"])
  expect(created.code, created.stderr).toBe(0)
  return dataOf<{ id: string; publicKey: string }>(created)
}

const transferArgs = (walletId: string, lamports: number) => [
  "tx", "create", "--wallet", walletId, "--type", "transfer_sol", "--protocol", "system-program", "--intent", JSON.stringify({ destination: DESTINATION, lamports })
]

describe("agent-custody", () => {
  it("reaches the service through the package's bin (npx agent-custody), which runs the build, and reports health", async () => {
    const packageJson = JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, "package.json"), "utf8")) as { bin: Record<string, string> }
    expect(packageJson.bin["agent-custody"]).toBe("src/cli/bin.mjs")
    expect(currentBuild(PROJECT_ROOT, "cli")).toBe(path.join(PROJECT_ROOT, "dist", "cli.js"))
    const viaNpx = await run(["health"], { command: ["npx", "--offline", "agent-custody"] })
    expect(viaNpx.code, viaNpx.stderr).toBe(0)
    expect(viaNpx.stdout).toMatch(/^status: ok$/m)
  }, 60_000)

  it("creates a wallet, shows it and its balance; --json prints the envelope", async () => {
    const created = await run(["wallets", "create", "--label", "ops", "--fund", "500000000"])
    expect(created.code, created.stderr).toBe(0)
    const id = created.stdout.match(/^wallet ([0-9a-f-]{36}) {2}\w+ {2}active {2}"ops"$/m)?.[1]
    expect(id, created.stdout).toBeDefined()
    const json = await run(["wallets", "get", id!, "--json"])
    expect(JSON.parse(json.stdout)).toMatchObject({ status: "success", errorCode: null, data: { id, label: "ops" } })
    const balance = await run(["wallets", "balance", id!])
    expect(balance.stdout).toMatch(/^lamports: 500000000$/m)
    const listed = await run(["wallets", "list", "--limit", "100"])
    expect(listed.stdout).toContain(`wallet ${id}`)
  }, 60_000)

  it("creates a transfer with a live stage display to its confirmation (exit 0)", async () => {
    const wallet = await fundedWallet()
    const result = await run([...transferArgs(wallet.id, 2_000_000), "--watch"])
    expect(result.code, result.stderr).toBe(0)
    const stages = [...result.stdout.matchAll(/^ {2}\d\d:\d\d:\d\d\.\d{3} {2}(\w+)/gm)].map((match) => match[1])
    // A message rebuilt before signing (its blockhash aged out on a loaded machine) runs simulation, policy and
    // signing again: each shown, in order.
    expect(stages.join(" ")).toMatch(/^pending (simulating policy_eval signing )+submitting confirmed$/)
    expect(result.stdout).toMatch(/^confirmed: signature \w{80,90}$/m)
    expect(result.stdout).toMatch(/^tx [0-9a-f-]{36} {2}transfer_sol system-program {2}confirmed {2}signature /m)
  }, 60_000)

  it("exits 3 on a policy refusal and 4 on a pipeline failure; retries a failed one; refuses bad arguments with 64", async () => {
    const wallet = await fundedWallet()
    const rules = JSON.stringify([{ type: "spending_limit", maxLamportsPerTx: 1 }])
    expect((await run(["policies", "create", "--wallet", wallet.id, "--name", "cap", "--rules", rules])).code).toBe(0)
    const listed = await run(["policies", "list", "--wallet", wallet.id])
    expect(listed.stdout).toMatch(/^policy [0-9a-f-]{36} {2}"cap" v1 active {2}1 rule\(s\)/m)
    const denied = await run(transferArgs(wallet.id, 5_000_000))
    expect(denied.code).toBe(3)
    expect(denied.stdout).toMatch(/ failed {2}POLICY_VIOLATION at policy: /)
    expect(denied.stderr).toMatch(/^error: POLICY_VIOLATION at policy \(HTTP 403, traceId [0-9a-f-]{36}\): /m)

    const empty = dataOf<{ id: string }>(await run(["wallets", "create", "--json"]))
    const failed = await run([...transferArgs(empty.id, 5_000_000), "--json"])
    expect(failed.code).toBe(4)
    const record = JSON.parse(failed.stdout) as { status: string; errorCode: string; data: { id: string } }
    expect(record).toMatchObject({ status: "failure", errorCode: "PIPELINE_ERROR" })
    const retried = await run(["tx", "retry", record.data.id])
    expect(retried.code, retried.stderr).toBe(0)
    expect(retried.stdout).toContain(`tx ${record.data.id}`)

    expect((await run(["tx", "create", "--type", "transfer_sol"])).code).toBe(64)
    expect((await run(["tx", "teleport"])).code).toBe(64)
    expect((await run(["tx", "get"])).code).toBe(64)
    expect((await run([...transferArgs(wallet.id, 1).slice(0, -1), "{not json"])).code).toBe(64)
    expect((await run(["wallets", "list", "--colour"])).code).toBe(64)
    // The service refuses an unknown intent field: VALIDATION_ERROR, exit 2, the field named.
    const typo = await run(["tx", "create", "--wallet", wallet.id, "--type", "transfer_sol", "--protocol", "system-program", "--intent", JSON.stringify({ destination: DESTINATION, lamport: 1 })])
    expect(typo.code).toBe(2)
    expect(typo.stderr).toMatch(/intent\.lamport: unknown field; did you mean lamports\?/)
    const unreachable = await run(["wallets", "list"], { env: { CUSTODY_URL: "http://127.0.0.1:9" } })
    expect(unreachable.code).toBe(69)
  }, 90_000)

  it("approves a transaction waiting at the gate and watches it confirm; rejects another (exit 3: its record is failed)", async () => {
    const wallet = await fundedWallet()
    const rules = JSON.stringify([{ type: "spending_limit", requireApprovalAboveLamports: 1 }])
    expect((await run(["policies", "create", "--wallet", wallet.id, "--name", "approve", "--rules", rules])).code).toBe(0)
    const waiting = await run([...transferArgs(wallet.id, 3_000_000), "--json"])
    expect(waiting.code, waiting.stderr).toBe(0)
    const txId = dataOf<{ id: string; status: string }>(waiting).id
    expect(dataOf<{ status: string }>(waiting).status).toBe("approval_gate")
    const pending = await run(["tx", "pending", "--wallet", wallet.id])
    expect(pending.stdout).toMatch(new RegExp(`^tx ${txId} .* approval_gate `, "m"))
    const previewHash = dataOf<{ approval: { previewHash: string } }>(waiting).approval.previewHash
    const otherPreview = await run(["tx", "approve", txId, "--preview-hash", "0".repeat(64)])
    expect(otherPreview.code).not.toBe(0)
    expect(otherPreview.stderr).toMatch(/previewHash: the preview of transaction .* changed since it was shown/)
    expect((await run(["tx", "approve", txId, "--preview-hash", previewHash])).code).toBe(0)
    const watched = await run(["tx", "watch", txId])
    expect(watched.code, watched.stderr).toBe(0)
    expect(watched.stdout).toMatch(/^ {2}\S+ {2}approval_gate /m)
    expect(watched.stdout).toMatch(/^confirmed: signature /m)
    // Approving again (an answer lost, a command run twice) answers the transaction as it is now.
    const again = await run(["tx", "approve", txId, "--preview-hash", previewHash])
    expect(again.code, again.stderr).toBe(0)
    expect(again.stdout).toMatch(new RegExp(`^tx ${txId} .* confirmed`, "m"))

    const other = dataOf<{ id: string }>(await run([...transferArgs(wallet.id, 3_000_000), "--json"]))
    // The service answers a rejected transaction as its failed record, in a failure envelope: the exit code follows it.
    const rejecting = await run(["tx", "reject", other.id, "--reason", "not this one"])
    expect(rejecting.code).toBe(3)
    expect(rejecting.stdout).toMatch(new RegExp(`^tx ${other.id} .* failed {2}POLICY_VIOLATION`, "m"))
    const rejected = await run(["tx", "get", other.id])
    expect(rejected.code).toBe(3)
    expect(rejected.stdout).toMatch(/ failed {2}POLICY_VIOLATION at policy: .*not this one/)
  }, 90_000)

  it("creates and drives an agent", async () => {
    const wallet = await fundedWallet()
    const created = await run(["agents", "create", "--name", "bot", "--wallet", wallet.id, "--budget", "20000000", "--intents", "transfer_sol,query_balance", "--json"])
    expect(created.code, created.stderr).toBe(0)
    const agentId = dataOf<{ id: string }>(created).id
    expect((await run(["agents", "start", agentId])).stdout).toMatch(new RegExp(`^agent ${agentId} {2}"bot" running autonomous`, "m"))
    expect((await run(["agents", "pause", agentId, "--reason", "checking"])).stdout).toMatch(/ paused autonomous/)
    expect((await run(["agents", "resume", agentId])).code).toBe(0)
    expect((await run(["agents", "stop", agentId])).stdout).toMatch(/ stopped autonomous/)
    expect((await run(["agents", "budget", agentId])).stdout).toMatch(/^budgetLamports: 20000000$/m)
    expect((await run(["agents", "list"])).stdout).toContain(`agent ${agentId}`)
  }, 60_000)

  it("subscribes, lists, rotates and deletes webhooks (the secret printed at create and rotate); creates sent again with their key answer the first", async () => {
    const url = "https://hooks.example.com/custody"
    const created = await run(["webhooks", "create", "--hook-url", url, "--events", "transaction.confirmed,policy.denied", "--description", "ops", "--idempotency-key", "cli-hook-1"])
    expect(created.code, created.stderr).toBe(0)
    const id = created.stdout.match(new RegExp(`^webhook ([0-9a-f-]{36}) {2}${url} {2}events transaction.confirmed,policy.denied {2}"ops"$`, "m"))?.[1]
    expect(id, created.stdout).toBeDefined()
    const secret = created.stdout.match(/^secret: (whsec_\S+)$/m)?.[1]
    expect(secret, created.stdout).toBeDefined()
    // the same create again (its first answer lost, say): the one subscription, its secret
    const again = await run(["webhooks", "create", "--hook-url", url, "--events", "transaction.confirmed,policy.denied", "--description", "ops", "--idempotency-key", "cli-hook-1", "--json"])
    expect(again.code, again.stderr).toBe(0)
    expect(dataOf<{ id: string; secret: string }>(again)).toMatchObject({ id, secret })
    expect((await run(["webhooks", "list"])).stdout.match(new RegExp(`^webhook ${id} `, "gm"))?.length).toBe(1)

    const rotated = await run(["webhooks", "rotate", id!])
    expect(rotated.code, rotated.stderr).toBe(0)
    expect(rotated.stdout.match(/^secret: (whsec_\S+)$/m)?.[1]).not.toBe(secret)
    expect((await run(["webhooks", "deliveries", id!, "--status", "dead"])).stdout).toMatch(/^\(0 of 0\)$/m)
    expect((await run(["webhooks", "delete", id!])).code).toBe(0)
    expect((await run(["webhooks", "get", id!])).code).toBe(2)
    expect((await run(["webhooks", "create", "--events", "policy.denied"])).code).toBe(64)

    // a wallet create sent again with its key answers the one wallet
    const first = await run(["wallets", "create", "--label", "keyed", "--idempotency-key", "cli-wallet-1", "--json"])
    const second = await run(["wallets", "create", "--label", "keyed", "--idempotency-key", "cli-wallet-1", "--json"])
    expect([first.code, second.code]).toEqual([0, 0])
    expect(dataOf<{ id: string }>(second).id).toBe(dataOf<{ id: string }>(first).id)
  }, 90_000)

  it("issues, lists, rotates and revokes API keys; the secret is printed once and works at once", async () => {
    const issued = await run(["keys", "issue", "--scopes", "wallets,audit", "--label", "cli-ops", "--tenant", "cli-tenant"])
    expect(issued.code, issued.stderr).toBe(0)
    const id = issued.stdout.match(/^key ([0-9a-f]{16}) {2}active {2}tenant \S+ {2}scopes wallets,audit {2}"cli-ops"$/m)?.[1]
    expect(id, issued.stdout).toBeDefined()
    const secret = issued.stdout.match(/^secret: (agck_\S+)$/m)?.[1]
    expect(secret, issued.stdout).toMatch(new RegExp(`^agck_${id}_`))

    // The new key works for what it was given, and nothing shows its secret again.
    const withKey = await run(["wallets", "list", "--limit", "1"], { env: { CUSTODY_API_KEY: secret! } })
    expect(withKey.code, withKey.stderr).toBe(0)
    const shown = await run(["keys", "get", id!, "--json"])
    expect(dataOf<{ id: string; status: string }>(shown)).toMatchObject({ id, status: "active" })
    expect(shown.stdout).not.toContain(secret!.slice(`agck_${id}_`.length))
    expect((await run(["keys", "list", "--status", "active", "--limit", "100"])).stdout).toContain(`key ${id}  active`)

    // Rotated with no grace: the old secret stops, the new one is printed once.
    const rotated = await run(["keys", "rotate", id!, "--grace-seconds", "0", "--label", "cli-ops-2"])
    expect(rotated.code, rotated.stderr).toBe(0)
    const successor = rotated.stdout.match(/^secret: (agck_([0-9a-f]{16})_\S+)$/m)
    expect(successor, rotated.stdout).not.toBeNull()
    expect(rotated.stdout).toMatch(new RegExp(`^replaces key ${id} `, "m"))
    const refused = await run(["wallets", "list"], { env: { CUSTODY_API_KEY: secret! } })
    expect(refused.code).toBe(2)
    expect((await run(["wallets", "list"], { env: { CUSTODY_API_KEY: successor![1]! } })).code).toBe(0)

    const revoked = await run(["keys", "revoke", successor![2]!, "--reason", "done"])
    expect(revoked.code, revoked.stderr).toBe(0)
    expect(revoked.stdout).toMatch(new RegExp(`^key ${successor![2]!} {2}revoked `, "m"))
    expect((await run(["wallets", "list"], { env: { CUSTODY_API_KEY: successor![1]! } })).code).toBe(2)
    expect((await run(["keys", "issue"])).code).toBe(64)
  }, 90_000)
})

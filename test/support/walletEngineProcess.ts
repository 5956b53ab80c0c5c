/**
 * The wallet engine as its own process (dist/wallet-engine.js, the build of what `npm run start:wallet-engine`
 * runs under tsx: processes.ts, `childFromBuild`), for split-deployment tests: it holds the key secret and signs for a gateway started with
 * WALLET_ENGINE_URL. Resolves once it announced it listens; `stop` kills its process group.
 */
import { spawn } from "node:child_process"
import * as os from "node:os"
import { nodeArgumentsFor } from "../../src/entryPoints.js"
import { childFromBuild, PROJECT_ROOT } from "./processes.js"

export interface WalletEngineOptions {
  readonly port: number
  readonly dataDir: string
  readonly databaseUrl: string
  readonly internalToken: string
  readonly keySecret: string
}

export const startWalletEngine = async (options: WalletEngineOptions) => {
  let output = ""
  const child = spawn(process.execPath, nodeArgumentsFor("wallet-engine", await childFromBuild()), {
    cwd: PROJECT_ROOT,
    detached: true,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? os.tmpdir(),
      DATA_DIR: options.dataDir,
      DATABASE_URL: options.databaseUrl,
      WALLET_ENGINE_PORT: String(options.port),
      WALLET_ENGINE_INTERNAL_TOKEN: options.internalToken,
      WALLET_SIGNER_BACKEND: "encrypted-file",
      WALLET_KEY_ENCRYPTION_SECRET: options.keySecret
    },
    stdio: ["ignore", "pipe", "pipe"]
  })
  child.stdout?.on("data", (chunk: Buffer) => void (output += chunk.toString()))
  child.stderr?.on("data", (chunk: Buffer) => void (output += chunk.toString()))
  const deadline = Date.now() + 60_000
  while (!output.includes("wallet engine listening")) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the wallet engine did not start:\n${output}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  return {
    child,
    output: () => output,
    stop: () => {
      if (child.pid !== undefined && child.exitCode === null) {
        try {
          process.kill(-child.pid, "SIGKILL")
        } catch {
          // Already gone.
        }
      }
    }
  }
}

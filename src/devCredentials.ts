/**
 * `npm start` is for a developer on their own machine: when no API key or key-encryption secret is
 * configured, it creates them once under DATA_DIR (file mode 0600) and reuses them on every start, so
 * the printed key keeps working. A deployment (`npm run start:prod`) never does this: it refuses to
 * start without its configuration.
 */
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"

export interface DevCredentials {
  readonly apiKey: string
  readonly keyEncryptionSecret: string
}

export const loadOrCreateDevCredentials = (dataDir: string): DevCredentials => {
  const file = path.join(dataDir, "dev-credentials.json")
  if (fs.existsSync(file)) return JSON.parse(fs.readFileSync(file, "utf8")) as DevCredentials
  fs.mkdirSync(dataDir, { recursive: true })
  const credentials: DevCredentials = {
    apiKey: `dev_${randomBytes(18).toString("base64url")}`,
    keyEncryptionSecret: randomBytes(32).toString("base64url")
  }
  fs.writeFileSync(file, JSON.stringify(credentials, null, 2), { mode: 0o600 })
  return credentials
}

/** Environment overrides for development mode; explicit configuration always wins. */
export const devEnvironment = (env: NodeJS.ProcessEnv): { overrides: Record<string, string>; apiKey: string | null } => {
  const dataDir = env.DATA_DIR ?? ".data"
  const credentials = loadOrCreateDevCredentials(dataDir)
  const overrides: Record<string, string> = {}
  let apiKey: string | null = null
  if ((env.API_GATEWAY_API_KEYS ?? "").trim() === "") {
    overrides.API_GATEWAY_API_KEYS = `${credentials.apiKey}:*:all`
    apiKey = credentials.apiKey
  }
  if ((env.WALLET_KEY_ENCRYPTION_SECRET ?? "").trim() === "" && (env.WALLET_SIGNER_BACKEND ?? "encrypted-file") === "encrypted-file") {
    overrides.WALLET_KEY_ENCRYPTION_SECRET = credentials.keyEncryptionSecret
  }
  return { overrides, apiKey }
}

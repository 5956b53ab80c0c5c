/**
 * `npm start` is for a developer on their own machine: when no API key or key-encryption secret is
 * configured, it creates them once under DATA_DIR (file mode 0600) and reuses them on every start, so
 * the printed key keeps working. A deployment (`npm run start:prod`) never does this: it refuses to
 * start without its configuration.
 */
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { DEFAULT_DATA_DIR } from "./dataDir.js"
import { localRelayPort } from "./gasless/localRelayPort.js"
import { loadOrCreateRelayApiKey } from "./gasless/relayApiKey.js"
import { ensureSoftHsmToken } from "./wallet/hsm/softHsm.js"

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
/**
 * `hsm` chosen with WALLET_HSM_PIN and no WALLET_HSM_MODULE: a SoftHSM token under DATA_DIR/softhsm (initialised
 * once; its SO PIN is WALLET_HSM_MODULE_SECRET or one generated into DATA_DIR/softhsm/so-pin), so one variable tries it.
 */
const devHsmToken = (env: NodeJS.ProcessEnv, dataDir: string, overrides: Record<string, string>, notices: Array<string>) => {
  const pin = (env.WALLET_HSM_PIN ?? "").trim()
  if (env.WALLET_SIGNER_BACKEND !== "hsm" || pin === "" || (env.WALLET_HSM_MODULE ?? "").trim() !== "") return
  const soPinFile = path.join(dataDir, "softhsm", "so-pin")
  let soPin = (env.WALLET_HSM_MODULE_SECRET ?? "").trim()
  if (soPin === "") {
    fs.mkdirSync(path.dirname(soPinFile), { recursive: true, mode: 0o700 })
    if (!fs.existsSync(soPinFile)) fs.writeFileSync(soPinFile, randomBytes(12).toString("hex"), { mode: 0o600 })
    soPin = fs.readFileSync(soPinFile, "utf8").trim()
  }
  const token = ensureSoftHsmToken(dataDir, pin, soPin)
  overrides.WALLET_HSM_MODULE = token.modulePath
  if ((env.WALLET_HSM_SLOT ?? "").trim() === "") overrides.WALLET_HSM_SLOT = token.label
  notices.push(
    `${token.created ? "initialised" : "using"} the development SoftHSM token "${token.label}" under ${path.dirname(token.configFile)} (WALLET_HSM_MODULE=${token.modulePath})`
  )
}

export const devEnvironment = (env: NodeJS.ProcessEnv): { overrides: Record<string, string>; apiKey: string | null; notices: Array<string> } => {
  const dataDir = env.DATA_DIR ?? DEFAULT_DATA_DIR
  const credentials = loadOrCreateDevCredentials(dataDir)
  const overrides: Record<string, string> = {}
  let apiKey: string | null = null
  if ((env.API_GATEWAY_API_KEYS ?? "").trim() === "") {
    overrides.API_GATEWAY_API_KEYS = `${credentials.apiKey}:*:all`
    apiKey = credentials.apiKey
  }
  // With a remote wallet engine this process must hold no key secret (the engine has its own).
  const remoteEngine = (env.WALLET_ENGINE_URL ?? "").trim() !== ""
  if (!remoteEngine && (env.WALLET_KEY_ENCRYPTION_SECRET ?? "").trim() === "" && (env.WALLET_SIGNER_BACKEND ?? "encrypted-file") === "encrypted-file") {
    overrides.WALLET_KEY_ENCRYPTION_SECRET = credentials.keyEncryptionSecret
  }
  // It prints and accepts a deployment-wide key: listen on loopback only, unless API_GATEWAY_HOST says otherwise.
  if ((env.API_GATEWAY_HOST ?? "").trim() === "") overrides.API_GATEWAY_HOST = "127.0.0.1"
  const notices: Array<string> = []
  // The fee-payer relay runs beside the local ledger (no CHAIN_RPC_URL): gasless intents use it by default.
  if ((env.CHAIN_RPC_URL ?? "").trim() === "" && (env.GASLESS_RPC_URL ?? "").trim() === "") {
    overrides.GASLESS_RPC_URL = `http://127.0.0.1:${localRelayPort(env)}`
    // the key the local relay demands (the relay reads the same variable or file, src/gasless/relayApiKey.ts)
    if ((env.GASLESS_RPC_API_KEY ?? "").trim() === "") overrides.GASLESS_RPC_API_KEY = loadOrCreateRelayApiKey(env.GASLESS_RELAY_API_KEY, dataDir)
  }
  devHsmToken(env, dataDir, overrides, notices)
  return { overrides, apiKey, notices }
}

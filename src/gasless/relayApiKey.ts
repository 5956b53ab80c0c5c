/**
 * The key of the local fee-payer relay (issue 31): it pays fees for whoever reaches its port, so it answers
 * only requests that present its key in `x-api-key` (Kora's own authentication header, so the same client
 * setting works against a real Kora). GASLESS_RELAY_API_KEY when set; otherwise generated once under
 * DATA_DIR (file mode 0600), where only the service's own processes (same user, same DATA_DIR) read it.
 */
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"

export const relayApiKeyFile = (dataDir: string) => path.join(dataDir, "gasless-relay-api-key")

/** The configured key, else the one kept under DATA_DIR (made on first use). */
export const loadOrCreateRelayApiKey = (configured: string | undefined, dataDir: string): string => {
  if (configured !== undefined && configured.trim() !== "") return configured.trim()
  const file = relayApiKeyFile(dataDir)
  if (fs.existsSync(file)) return fs.readFileSync(file, "utf8").trim()
  fs.mkdirSync(dataDir, { recursive: true })
  const key = `relay_${randomBytes(24).toString("base64url")}`
  try {
    fs.writeFileSync(file, key, { mode: 0o600, flag: "wx" })
    return key
  } catch (error) {
    // another process of the service made it first: theirs is the key
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return fs.readFileSync(file, "utf8").trim()
    throw error
  }
}

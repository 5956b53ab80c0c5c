/**
 * SoftHSM (Debian's softhsm2) as a development token: a configuration file and token directory under
 * DATA_DIR/softhsm, and one token initialised with `softhsm2-util` when none exists yet. SOFTHSM2_CONF
 * is the library's own variable: it is set in this process before the module is loaded.
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"

export const SOFTHSM_MODULE = "/usr/lib/softhsm/libsofthsm2.so"
export const DEV_TOKEN_LABEL = "agent-custody-dev"

export interface DevToken {
  readonly modulePath: string
  readonly label: string
  readonly configFile: string
  /** True when this call initialised the token. */
  readonly created: boolean
}

export const ensureSoftHsmToken = (dataDir: string, pin: string, soPin: string, label = DEV_TOKEN_LABEL): DevToken => {
  if (!fs.existsSync(SOFTHSM_MODULE)) throw new Error(`SoftHSM is not installed (${SOFTHSM_MODULE}); apt-get install -y softhsm2`)
  const root = path.resolve(dataDir, "softhsm")
  const tokens = path.join(root, "tokens")
  fs.mkdirSync(tokens, { recursive: true, mode: 0o700 })
  const configFile = path.join(root, "softhsm2.conf")
  fs.writeFileSync(configFile, `directories.tokendir = ${tokens}\nobjectstore.backend = file\nlog.level = ERROR\n`, { mode: 0o600 })
  process.env.SOFTHSM2_CONF = configFile
  const env = { ...process.env, SOFTHSM2_CONF: configFile }
  const listing = execFileSync("softhsm2-util", ["--show-slots"], { env, encoding: "utf8" })
  const exists = listing.split("\n").some((line) => /^\s*Label:\s*(.*)$/.exec(line)?.[1]?.trim() === label)
  if (!exists) {
    // The PINs pass on the command line of a local, short-lived child process: acceptable for a development token only.
    execFileSync("softhsm2-util", ["--init-token", "--free", "--label", label, "--pin", pin, "--so-pin", soPin], { env, stdio: "ignore" })
  }
  return { modulePath: SOFTHSM_MODULE, label, configFile, created: !exists }
}

/**
 * Debian's chromium driven by playwright-core for the console's browser tests: nothing downloads a
 * browser (.ci/run installs the `chromium` package). Each launch gets a fresh profile directory.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { type BrowserContext, chromium, type Page } from "playwright-core"

export const CHROMIUM_PATH = "/usr/bin/chromium"

/** Screenshots land here (gitignored): test-artifacts/console/<name>.png. */
export const ARTIFACTS_DIR = fileURLToPath(new URL("../../test-artifacts/console/", import.meta.url))

const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync"
]

export interface Browser {
  readonly context: BrowserContext
  readonly newPage: () => Promise<Page>
  readonly close: () => Promise<void>
}

export const launchBrowser = async (): Promise<Browser> => {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "console-chromium-"))
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ARGS,
    viewport: { width: 1360, height: 900 }
  })
  return {
    context,
    newPage: () => context.newPage(),
    close: async () => {
      await context.close()
      fs.rmSync(profile, { recursive: true, force: true })
    }
  }
}

/** A full-page screenshot of what the operator sees, as a test artifact. */
export const screenshot = async (page: Page, name: string) => {
  fs.mkdirSync(ARTIFACTS_DIR, { recursive: true })
  await page.screenshot({ path: path.join(ARTIFACTS_DIR, `${name}.png`), fullPage: true })
}

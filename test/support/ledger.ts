/** A real local ledger (litesvm behind JSON-RPC) for one test file, on a free port pair. */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { startLedgerServer, type LedgerServer } from "../../src/ledger/server.js"

/** Ports 20000-39999 in steps of 2 (RPC + PubSub); a collision retries with another pair. */
export const startTestLedger = async (): Promise<LedgerServer & { dataDir: string }> => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "custody-ledger-"))
  for (let attempt = 0; ; attempt++) {
    const port = 20_000 + 2 * Math.floor(Math.random() * 10_000)
    try {
      const server = await startLedgerServer({ port, dataDir })
      return {
        ...server,
        dataDir,
        close: async () => {
          await server.close()
          fs.rmSync(dataDir, { recursive: true, force: true })
        }
      }
    } catch (error) {
      if (attempt >= 5) throw error
    }
  }
}

/** The tool server is a client of the gateway over HTTP: src/mcp imports no wallet, pipeline, db or other component code. */
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"

const MCP_DIR = fileURLToPath(new URL("../../src/mcp", import.meta.url))

const sources = (dir: string): Array<string> =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sources(path.join(dir, entry.name)) : entry.name.endsWith(".ts") ? [path.join(dir, entry.name)] : []
  )

describe("src/mcp boundaries", () => {
  it("imports only schemas, the gateway's route helpers, its inner-call marker, how a request presents its key, and itself", () => {
    const files = sources(MCP_DIR)
    expect(files.length).toBeGreaterThan(5)
    for (const file of files) {
      const imports = [...fs.readFileSync(file, "utf8").matchAll(/from "(\.{1,2}\/[^"]+)"/g)].map((match) => path.resolve(path.dirname(file), match[1]!))
      for (const target of imports) {
        const relative = path.relative(path.resolve(MCP_DIR, "../.."), target)
        expect(relative, `${path.relative(MCP_DIR, file)} imports ${relative}`).toMatch(/^(schemas\/|src\/mcp\/|src\/gateway\/(route|envelope|request|innerCall|presentedKey)\.js$)/)
      }
    }
  })
})

// programs:build --check must fail loudly, not pass, on a machine without clang.
import { spawnSync } from "node:child_process"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"

const repo = fileURLToPath(new URL("../..", import.meta.url))

describe("programs:build --check", () => {
  it("exits non-zero and says why when clang is missing", () => {
    const run = spawnSync(process.execPath, ["--import", "tsx", "programs/build.ts", "--check"], {
      cwd: repo,
      env: { ...process.env, CLANG: "/nonexistent/clang" },
      encoding: "utf8"
    })
    expect(run.status).toBe(1)
    expect(run.stderr).toContain("clang not found")
    expect(run.stderr).toContain("cannot verify")
  })
})

/**
 * The package's bin (src/cli/bin.mjs) in a copy of the CLI's files and of its build (a temp folder: the project's
 * own sources stay untouched): with the build current it runs dist/cli.js, where no TypeScript loader could run
 * anything (the copy has no node_modules); once a source is edited it runs the edited source through tsx.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { buildFiles, currentBuild, fileStamp, writeBuildManifest } from "../../src/programBuild.mjs"
import { PROJECT_ROOT, tempDir } from "../support/processes.js"
import { buildOnceForThisRun } from "../support/serviceBuild.js"

const copy = tempDir("custody-cli-bin-")
const { bundle: CLI_BUNDLE, manifest: CLI_MANIFEST } = buildFiles("cli")

beforeAll(buildOnceForThisRun)
afterAll(() => fs.rmSync(copy, { recursive: true, force: true }))

const help = () => {
  const result = spawnSync(process.execPath, [path.join(copy, "src/cli/bin.mjs"), "--help"], { cwd: copy, encoding: "utf8", env: { PATH: process.env.PATH ?? "" } })
  return { code: result.status, stdout: result.stdout, stderr: result.stderr }
}

describe("the CLI's bin", () => {
  it("runs the build while it is current, and an edited source after", () => {
    const { inputs } = JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, CLI_MANIFEST), "utf8")) as { inputs: Record<string, unknown> }
    // what the bundle was made of: the CLI's and the SDK's sources, no npm package
    expect(Object.keys(inputs)).toContain("src/cli/main.ts")
    expect(Object.keys(inputs)).toContain("sdk/src/client.ts")
    expect(Object.keys(inputs).filter((input) => !/^(src\/cli|sdk\/src)\/\w+\.ts$/.test(input))).toEqual([])
    for (const file of [...Object.keys(inputs), "src/cli/bin.mjs", "src/programBuild.mjs", "package.json", CLI_BUNDLE]) {
      fs.mkdirSync(path.dirname(path.join(copy, file)), { recursive: true })
      fs.copyFileSync(path.join(PROJECT_ROOT, file), path.join(copy, file))
    }
    // the copy's build: the same bundle of the same sources, stamped as they are in the copy
    writeBuildManifest(copy, "cli", Object.fromEntries(Object.keys(inputs).map((input) => [input, fileStamp(path.join(copy, input))])))
    expect(currentBuild(copy, "cli")).toBe(path.join(copy, "dist", "cli.js"))
    const built = help()
    expect(built.code, built.stderr).toBe(0)
    expect(built.stdout).toMatch(/^usage: agent-custody <command>/)

    // An edit of a source: the build is stale, the bin runs the sources (tsx, from the project's node_modules).
    fs.symlinkSync(path.join(PROJECT_ROOT, "node_modules"), path.join(copy, "node_modules"))
    const main = path.join(copy, "src/cli/main.ts")
    fs.writeFileSync(main, fs.readFileSync(main, "utf8").replace("usage: agent-custody", "usage (edited): agent-custody"))
    expect(currentBuild(copy, "cli")).toBeUndefined()
    const edited = help()
    expect(edited.code, edited.stderr).toBe(0)
    expect(edited.stdout).toMatch(/^usage \(edited\): agent-custody <command>/)
  })
})

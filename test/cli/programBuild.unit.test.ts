/**
 * Which way the CLI's bin goes (src/programBuild.mjs, which the MCP tool server's bin asks too): the build,
 * dist/cli.js, only while its manifest's every recorded file still has the size and mtime it had when the build read
 * it; the sources otherwise. Laid out in a temp folder with a manifest written as `npm run build` writes it;
 * test/cli/bin.test.ts runs the bin itself.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { buildFiles, currentBuild, type FileStamp, fileStamp, writeBuildManifest } from "../../src/programBuild.mjs"

const { bundle: CLI_BUNDLE, manifest: CLI_MANIFEST } = buildFiles("cli")
const currentCliBuild = (root: string) => currentBuild(root, "cli")
const writeCliManifest = (root: string, inputs: Record<string, FileStamp>) => writeBuildManifest(root, "cli", inputs)

const INPUTS = ["src/cli/main.ts", "src/cli/render.ts", "sdk/src/index.ts"]
const projects: Array<string> = []

afterEach(() => {
  for (const project of projects.splice(0)) fs.rmSync(project, { recursive: true, force: true })
})

/** A project folder with the CLI's inputs, its bundle and a manifest of them, as a build leaves it. */
const builtProject = () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "custody-which-build-"))
  projects.push(root)
  for (const input of [...INPUTS, CLI_BUNDLE]) {
    fs.mkdirSync(path.dirname(path.join(root, input)), { recursive: true })
    fs.writeFileSync(path.join(root, input), `// ${input}\n`)
  }
  writeCliManifest(root, Object.fromEntries(INPUTS.map((input) => [input, fileStamp(path.join(root, input))])))
  return root
}

/** Moves a file's mtime, its contents and size unchanged (what `touch` does). */
const touch = (file: string) => {
  const { atime, mtimeMs } = fs.statSync(file)
  fs.utimesSync(file, atime, new Date(mtimeMs + 5_000))
}

describe("currentCliBuild", () => {
  it("names dist/cli.js while every input is as the build read it", () => {
    const root = builtProject()
    expect(currentCliBuild(root)).toBe(path.join(root, "dist", "cli.js"))
  })

  it("is undefined once an input is touched, or edited at the same size", () => {
    const touched = builtProject()
    touch(path.join(touched, "src/cli/render.ts"))
    expect(currentCliBuild(touched)).toBeUndefined()

    const edited = builtProject()
    fs.writeFileSync(path.join(edited, "sdk/src/index.ts"), fs.readFileSync(path.join(edited, "sdk/src/index.ts"), "utf8").toUpperCase())
    touch(path.join(edited, "sdk/src/index.ts"))
    expect(currentCliBuild(edited)).toBeUndefined()
  })

  it("is undefined when an input was edited after the build stamped it (while the build ran)", () => {
    const root = builtProject()
    const file = path.join(root, "src/cli/main.ts")
    const stampedAtRead = fileStamp(file)
    fs.appendFileSync(file, "export {}\n")
    writeCliManifest(root, Object.fromEntries(INPUTS.map((input) => [input, input === "src/cli/main.ts" ? stampedAtRead : fileStamp(path.join(root, input))])))
    expect(currentCliBuild(root)).toBeUndefined()
  })

  it("is undefined when an input is missing", () => {
    const root = builtProject()
    fs.rmSync(path.join(root, "src/cli/render.ts"))
    expect(currentCliBuild(root)).toBeUndefined()
  })

  it("is undefined for a manifest that cannot be read or names nothing", () => {
    const root = builtProject()
    for (const garbage of ["{not json", "null", "[]", "{}", '{"bundle":{},"inputs":{}}', '{"inputs":"src/cli/main.ts"}']) {
      fs.writeFileSync(path.join(root, CLI_MANIFEST), garbage)
      expect(currentCliBuild(root), garbage).toBeUndefined()
    }
  })

  it("is undefined with no build, with no manifest, or with a bundle other than the one the manifest was written for", () => {
    const noDist = builtProject()
    fs.rmSync(path.join(noDist, "dist"), { recursive: true })
    expect(currentCliBuild(noDist)).toBeUndefined()

    const noManifest = builtProject()
    fs.rmSync(path.join(noManifest, CLI_MANIFEST))
    expect(currentCliBuild(noManifest)).toBeUndefined()

    const noBundle = builtProject()
    fs.rmSync(path.join(noBundle, CLI_BUNDLE))
    expect(currentCliBuild(noBundle)).toBeUndefined()

    const otherBundle = builtProject()
    fs.appendFileSync(path.join(otherBundle, CLI_BUNDLE), "// another build\n")
    expect(currentCliBuild(otherBundle)).toBeUndefined()
  })

  it("is per program: the CLI's current build says nothing of the MCP server's", () => {
    const root = builtProject()
    expect(currentCliBuild(root)).toBe(path.join(root, "dist", "cli.js"))
    expect(currentBuild(root, "mcp")).toBeUndefined()
  })
})

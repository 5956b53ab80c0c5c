// Builds every on-chain program from source: programs/<name>/*.c -> programs/dist/<name>.so,
// and the linker's test fixtures: test/programs/fixtures/<name>/*.c -> <name>/*.o.
// The shared helpers (programs/include/*.c) are a library: a program links only the ones it calls.
//
//   npm run programs:build              rebuild and write the outputs
//   npm run programs:build -- --check   rebuild into a temp dir; exit 1 if any byte differs from
//                                       the committed outputs (or if clang is missing)
//
// Deterministic: no debug info, sources compiled in sorted order from their own directory,
// and the linker writes no paths or timestamps.
import { execFileSync } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { basename, dirname, join, relative } from "node:path"
import { fileURLToPath } from "node:url"
import { withNeededMembers } from "./linker/library.js"
import { linkObjects } from "./linker/link.js"

const programsDir = dirname(fileURLToPath(import.meta.url))
const repoDir = dirname(programsDir)
const distDir = join(programsDir, "dist")
const fixturesDir = join(repoDir, "test", "programs", "fixtures")
const includeDir = join(programsDir, "include")
const toolchainFile = join(distDir, "toolchain.txt")
const NOT_PROGRAMS = new Set(["include", "linker", "dist", "node_modules"])
const clang = process.env.CLANG ?? "clang"

const clangVersion = (): string | undefined => {
  try {
    const out = execFileSync(clang, ["--version"], { encoding: "utf8" })
    return out.split("\n")[0].trim()
  } catch {
    return undefined
  }
}

const clangFlags = (version: string): string[] => {
  const major = Number(/version (\d+)/.exec(version)?.[1] ?? "0")
  return [
    "-target", "bpfel", "-mcpu=v2", "-O2", "-fno-builtin", "-ffreestanding", "-nostdlib",
    "-fno-stack-protector", "-fno-jump-tables", "-fno-common", "-Wall", "-Wextra", "-Werror",
    // clang >= 19 checks the BPF stack against this; SBPF frames are 4 KiB. clang 14 keeps 512 bytes.
    ...(major >= 19 ? ["-mllvm", "-bpf-stack-size=4096"] : []),
    "-I", includeDir
  ]
}

const cSources = (dir: string): string[] => readdirSync(dir).filter((f) => f.endsWith(".c")).sort()

const subdirsWithSources = (root: string, skip: ReadonlySet<string>): string[] =>
  existsSync(root)
    ? readdirSync(root)
        .filter((name) => !skip.has(name) && !name.startsWith("."))
        .filter((name) => statSync(join(root, name)).isDirectory() && cSources(join(root, name)).length > 0)
        .sort()
    : []

const compile = (flags: string[], sourceDir: string, source: string, output: string): void => {
  // Compile from the source's own directory with a relative name, so no absolute path reaches the object.
  execFileSync(clang, [...flags, "-c", source, "-o", output], { cwd: sourceDir, stdio: ["ignore", "inherit", "inherit"] })
}

interface Output {
  /** Where the committed file lives. */
  readonly path: string
  readonly bytes: Uint8Array
}

const buildAll = (flags: string[], scratch: string): Output[] => {
  const outputs: Output[] = []
  const library = cSources(includeDir).map((source) => {
    const objectPath = join(scratch, `include-${basename(source, ".c")}.o`)
    compile(flags, includeDir, source, objectPath)
    return { name: `include/${source}`, bytes: readFileSync(objectPath) }
  })
  for (const name of subdirsWithSources(programsDir, NOT_PROGRAMS)) {
    const sourceDir = join(programsDir, name)
    const objects = cSources(sourceDir).map((source) => {
      const objectPath = join(scratch, `${name}-${basename(source, ".c")}.o`)
      compile(flags, sourceDir, source, objectPath)
      return { name: `${name}/${source}`, bytes: readFileSync(objectPath) }
    })
    outputs.push({ path: join(distDir, `${name}.so`), bytes: linkObjects(withNeededMembers(objects, library)) })
  }
  for (const name of subdirsWithSources(fixturesDir, new Set())) {
    const sourceDir = join(fixturesDir, name)
    for (const source of cSources(sourceDir)) {
      const objectPath = join(scratch, `fixture-${name}-${basename(source, ".c")}.o`)
      compile(flags, sourceDir, source, objectPath)
      outputs.push({ path: join(sourceDir, `${basename(source, ".c")}.o`), bytes: readFileSync(objectPath) })
    }
  }
  return outputs
}

const firstDifference = (a: Uint8Array, b: Uint8Array): number => {
  const n = Math.min(a.length, b.length)
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i
  return n
}

const main = (): number => {
  const check = process.argv.includes("--check")
  const version = clangVersion()
  if (version === undefined) {
    console.error(`programs:build: clang not found (tried "${clang}"). Install Debian clang (apt-get install -y clang) or set CLANG.`)
    if (check) console.error("programs:build --check: cannot verify that programs/dist matches the sources without clang.")
    return 1
  }
  const scratch = mkdtempSync(join(tmpdir(), "programs-build-"))
  try {
    const outputs = buildAll(clangFlags(version), scratch)
    const toolchain = `${version}\n`
    if (!check) {
      mkdirSync(distDir, { recursive: true })
      for (const out of outputs) {
        writeFileSync(out.path, out.bytes)
        console.log(`wrote ${relative(repoDir, out.path)} (${out.bytes.length} bytes)`)
      }
      writeFileSync(toolchainFile, toolchain)
      return 0
    }
    const committedToolchain = existsSync(toolchainFile) ? readFileSync(toolchainFile, "utf8") : "(unknown)"
    let failures = 0
    for (const out of outputs) {
      const shown = relative(repoDir, out.path)
      if (!existsSync(out.path)) {
        console.error(`${shown}: missing; run npm run programs:build and commit it`)
        failures++
        continue
      }
      const committed = readFileSync(out.path)
      if (Buffer.compare(committed, out.bytes) !== 0) {
        console.error(
          `${shown}: committed bytes differ from a rebuild from source (committed ${committed.length} bytes, rebuilt ${out.bytes.length} bytes, ` +
            `first difference at offset ${firstDifference(committed, out.bytes)}). Committed with: ${committedToolchain.trim()}; this machine: ${version}. ` +
            `Run npm run programs:build and commit the result.`
        )
        failures++
      } else {
        console.log(`${shown}: reproduced (${committed.length} bytes)`)
      }
    }
    return failures === 0 ? 0 : 1
  } finally {
    rmSync(scratch, { recursive: true, force: true })
  }
}

try {
  process.exitCode = main()
} catch (error) {
  console.error(`programs:build: ${error instanceof Error ? error.message : String(error)}`)
  process.exitCode = 1
}

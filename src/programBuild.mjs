// Whether a program the package's scripts start by hand (the operators' CLI, the MCP tool server over stdio) runs
// from its build (dist/<name>.js) or from its TypeScript sources through tsx: their bins (src/cli/bin.mjs,
// src/mcp/bin.mjs) call `runProgram`. Plain JavaScript on node:fs, node:path and node:url only: a bin loads it at
// every start, before it knows which way to go.
//
// `npm run build` (scripts/build.ts) bundles each such program into dist/<name>.js and writes dist/<name>.inputs.json
// beside it: every file the bundle was made of (esbuild's metafile inputs, paths relative to the project root) with
// the size and mtime it had just before the build read it, and the bundle's own (the build writes none when a source
// changed while it ran). The build is current while each of those files still has them. Checking those files is
// enough for a stale build never to run: an edited input changes its own mtime, and a changed import graph (an import
// added, removed or pointed elsewhere) is an edit of a file that was an input, so it changes that file's mtime too.
// A file deleted is missing; a file the sources would now import is named by an edited input.
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

/** A program's bundle and its manifest, relative to the project root. */
export const buildFiles = (name) => ({ bundle: `dist/${name}.js`, manifest: `dist/${name}.inputs.json` })

/** What a file looks like to the manifest: its size and modification time (ms, as fs.statSync gives it). */
export const fileStamp = (file) => {
  const stats = fs.statSync(file)
  return { size: stats.size, mtimeMs: stats.mtimeMs }
}

const sameStamp = (file, recorded) => {
  if (typeof recorded !== "object" || recorded === null) return false
  try {
    const stamp = fileStamp(file)
    return stamp.size === recorded.size && stamp.mtimeMs === recorded.mtimeMs
  } catch {
    return false
  }
}

/**
 * Writes the manifest of a program's build: `inputs` maps each input's path (relative to projectRoot) to its stamp as
 * taken before the build read it, so that an edit made while the build ran leaves the build stale.
 */
export const writeBuildManifest = (projectRoot, name, inputs) => {
  const files = buildFiles(name)
  const bundle = fileStamp(path.join(projectRoot, files.bundle))
  fs.writeFileSync(path.join(projectRoot, files.manifest), `${JSON.stringify({ bundle, inputs }, null, 1)}\n`)
}

/**
 * The program's bundle (absolute path) when the build of the project at projectRoot is current: the bundle and its
 * manifest exist and every recorded file still has its size and mtime. Undefined otherwise (no build, a source
 * edited or removed since, a manifest that cannot be read): the sources are then what runs.
 */
export const currentBuild = (projectRoot, name) => {
  const files = buildFiles(name)
  let manifest
  try {
    manifest = JSON.parse(fs.readFileSync(path.join(projectRoot, files.manifest), "utf8"))
  } catch {
    return undefined
  }
  const inputs = typeof manifest === "object" && manifest !== null ? Object.entries(manifest.inputs ?? {}) : []
  const bundle = path.join(projectRoot, files.bundle)
  if (inputs.length === 0 || !sameStamp(bundle, manifest.bundle)) return undefined
  return inputs.every(([input, recorded]) => sameStamp(path.join(projectRoot, input), recorded)) ? bundle : undefined
}

/**
 * What a bin does: runs the program `name` of the project at `projectRootUrl` from its build when current, else its
 * source (`sourceUrl`) through tsx, which loads only then.
 */
export const runProgram = async (projectRootUrl, name, sourceUrl) => {
  const built = currentBuild(fileURLToPath(projectRootUrl), name)
  if (built !== undefined) return import(pathToFileURL(built).href)
  const { register } = await import("tsx/esm/api")
  register()
  return import(sourceUrl)
}

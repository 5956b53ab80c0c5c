#!/usr/bin/env node
// `npx agent-custody ...` (package.json "bin"): the operators' CLI. It runs the build (dist/cli.js, made by
// `npm run build`) when that is current, else its TypeScript sources through tsx (whichBuild.mjs says which and
// why a stale build never runs). Nothing but node:fs, node:path and node:url loads before that choice.
import * as path from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { currentCliBuild } from "./whichBuild.mjs"

const built = currentCliBuild(path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../.."))
if (built !== undefined) {
  await import(pathToFileURL(built).href)
} else {
  const { register } = await import("tsx/esm/api")
  register()
  await import("./main.ts")
}

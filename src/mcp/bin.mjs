// `npm run mcp`: the MCP tool server over stdio, for desktop MCP hosts. It runs the build (dist/mcp.js, made by
// `npm run build`) when that is current, else its TypeScript sources through tsx (../programBuild.mjs says which and
// why a stale build never runs). Nothing but node:fs, node:path and node:url loads before that choice.
import { runProgram } from "../programBuild.mjs"

await runProgram(new URL("../..", import.meta.url), "mcp", new URL("./main.ts", import.meta.url).href)

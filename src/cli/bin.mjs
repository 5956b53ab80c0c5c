#!/usr/bin/env node
// `npx agent-custody ...` (package.json "bin"): the operators' CLI, run from its TypeScript sources through tsx.
import { register } from "tsx/esm/api"

register()
await import("./main.ts")

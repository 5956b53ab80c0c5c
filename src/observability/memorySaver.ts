/**
 * V8's memory saver mode (issue 35), asked for by V8_MEMORY_SAVER (`npm run start:prod:lean` sets it). On Node 24
 * the lean profile's resident memory rose through a 20-minute load (V8's old generation growing from 67 to 78 MiB
 * while the live heap stayed at 63-64 MiB: heap snapshots ten minutes apart) and settled near the 250 MiB budget;
 * in this mode V8 collects and compacts towards the live size, and the same load held flat about 40 MiB lower, for
 * about a quarter more CPU per transfer (docs/decisions/production.md, "V8's memory saver mode").
 *
 * The mode's cost depends on `--heap-growing-percent`: without one, V8 collects far more often (more than twice the
 * CPU per transfer, against 25-65% more with 50%: "The memory saver mode and V8's heap growing factor"), so a start
 * without it is told so.
 *
 * Node 20 and 22 have no such flag (their V8 refuses it on the command line, which is why this is a setting and
 * not a flag in the start script). The entries (main.ts, serviceLoader.ts) set it before anything of the service is
 * compiled: V8 stamps a code cache with a hash of its flags, and a cache written after the flag changed would be
 * refused at every start that compiles before setting it (the lean profile's service code cache was, until this).
 */
import { setFlagsFromString } from "node:v8"

/** The first Node.js major whose V8 has `--memory-saver-mode` (checked on 20.20, 22.23 and 24.22). */
export const MEMORY_SAVER_NODE_MAJOR = 24

export type MemorySaverOutcome =
  | { readonly _tag: "Off" }
  | { readonly _tag: "On"; readonly warning?: string }
  | { readonly _tag: "Unsupported"; readonly warning: string }

/** The node flags that set V8's heap growing step (`--heap-growing-percent=N`, `--heap_growing_percent N`). */
const setsHeapGrowing = (nodeFlags: ReadonlyArray<string>) => nodeFlags.some((flag) => /^--heap[-_]growing[-_]percent(=|$)/.test(flag))

/**
 * What V8_MEMORY_SAVER does on this Node.js version with these node flags (the command line's and NODE_OPTIONS'):
 * a pure decision; `applyMemorySaver` acts on it.
 */
export const memorySaverOutcome = (wanted: boolean, nodeVersion: string, nodeFlags: ReadonlyArray<string> = []): MemorySaverOutcome => {
  if (!wanted) return { _tag: "Off" }
  const major = Number.parseInt(nodeVersion.split(".")[0] ?? "", 10)
  if (major >= MEMORY_SAVER_NODE_MAJOR) {
    return setsHeapGrowing(nodeFlags)
      ? { _tag: "On" }
      : {
          _tag: "On",
          warning: "V8_MEMORY_SAVER is on without --heap-growing-percent: V8 then collects far more often (more than twice the CPU per transfer, measured); start node with --heap-growing-percent=50 as npm run start:prod:lean does"
        }
  }
  return {
    _tag: "Unsupported",
    warning: `V8_MEMORY_SAVER is ignored: V8's memory saver mode needs Node.js ${MEMORY_SAVER_NODE_MAJOR} or later (this is ${nodeVersion}); the service runs with V8's default heap sizing`
  }
}

/** Effect's Config.boolean words (config.ts reads V8_MEMORY_SAVER with it and stops the start on any other). */
const TRUE_WORDS = new Set(["true", "yes", "on", "1"])

/**
 * Whether V8_MEMORY_SAVER asks for the mode, read from the environment before Effect's configuration is (the entries
 * set the flag first thing). A value that is not a boolean reads as no: the start's configuration check then stops
 * the process naming the variable.
 */
export const memorySaverAsked = (env: NodeJS.ProcessEnv): boolean => TRUE_WORDS.has(env.V8_MEMORY_SAVER ?? "")

/** The node flags this process was started with: its command line's and those NODE_OPTIONS adds. */
const processNodeFlags = (): ReadonlyArray<string> => [...process.execArgv, ...(process.env.NODE_OPTIONS ?? "").split(/\s+/)]

/** What V8_MEMORY_SAVER does in this process (its Node.js version and flags): the start prints its warning. */
export const memorySaverOfThisProcess = (wanted: boolean): MemorySaverOutcome => memorySaverOutcome(wanted, process.versions.node, processNodeFlags())

/** Turns the mode on where the environment asks for it and V8 has it (the start prints the warnings, above). */
export const applyMemorySaver = (env: NodeJS.ProcessEnv): void => {
  if (memorySaverOfThisProcess(memorySaverAsked(env))._tag === "On") setFlagsFromString("--memory-saver-mode")
}

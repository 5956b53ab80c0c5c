/** Processes below a pid and their memory, read from /proc (Linux): the service's node process under tsx, its ledger child. */
import * as fs from "node:fs"

/** Whether a process with this pid runs (signal 0 checks without sending anything). */
export const isRunning = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** Every process below `pid` (children, grandchildren), parents first. */
export const descendantsOf = (pid: number): Array<number> => {
  const parents = new Map<number, number>()
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    try {
      // The command name may hold spaces and parentheses: the parent pid is the 2nd field after the last ")".
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8")
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]))
    } catch {
      // Gone meanwhile.
    }
  }
  const found: Array<number> = []
  const visit = (parent: number) => {
    for (const [child, ppid] of parents) if (ppid === parent) (found.push(child), visit(child))
  }
  visit(pid)
  return found
}

/** A process's command line, its arguments split. */
export const commandLineOf = (pid: number): Array<string> =>
  fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter((part) => part !== "")

/** The node process that runs the service's main module: `pid` itself, or its child under the tsx CLI. */
export const serviceNodePid = (pid: number): number =>
  [pid, ...descendantsOf(pid)].find((candidate) => {
    try {
      return commandLineOf(candidate).some((arg) => /(^|\/)(src\/main\.ts|dist\/main\.js)$/.test(arg))
        && !commandLineOf(candidate).some((arg) => arg.endsWith("/tsx/dist/cli.mjs") || arg.endsWith(".bin/tsx"))
    } catch {
      return false
    }
  }) ?? pid

/** Resident memory in MiB (VmRSS). */
export const residentMiB = (pid: number): number => {
  const line = fs.readFileSync(`/proc/${pid}/status`, "utf8").split("\n").find((l) => l.startsWith("VmRSS:"))
  return Number(line?.match(/(\d+)/)?.[1] ?? Number.NaN) / 1024
}

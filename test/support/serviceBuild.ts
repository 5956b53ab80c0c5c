/**
 * The build the tests' service processes run (test/support/processes.ts): `npm run build`, once per test run, by
 * the first file that starts a service from it, whichever fork runs that file; the other forks wait for it. A build
 * removes dist/ before writing it again, so two at once, or one while a service starts from dist/, would break the
 * other: a lock (a folder, since mkdir is atomic) and a marker of the finished build, in the temp folder and named
 * by the run (CUSTODY_TEST_RUN, which globalBuild.ts sets for the run's forks), make it one build per run.
 */
import { execFile } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { promisify } from "node:util"

const PROJECT_ROOT = path.resolve(import.meta.dirname, "../..")

/** How long a fork waits for another's build before it says so (a build takes seconds; a killed fork leaves its lock). */
const WAIT_LIMIT_MS = 180_000

/** The lock and the marker of a run's build. */
export const buildFilesOfRun = (run: string) => {
  const base = path.join(os.tmpdir(), `custody-test-build-${run}`)
  return { lock: `${base}.lock`, done: `${base}.done` }
}

const isExisting = (error: unknown) => error instanceof Error && "code" in error && error.code === "EEXIST"

/** Runs `npm run build` unless this run already did; resolves with what the build printed. */
export const buildOnceForThisRun = async (): Promise<string> => {
  const run = process.env.CUSTODY_TEST_RUN
  if (run === undefined) throw new Error("CUSTODY_TEST_RUN is not set: the tests' global setup (test/support/globalBuild.ts) did not run")
  const { lock, done } = buildFilesOfRun(run)
  const deadline = Date.now() + WAIT_LIMIT_MS
  for (;;) {
    if (fs.existsSync(done)) return fs.readFileSync(done, "utf8")
    try {
      fs.mkdirSync(lock)
    } catch (error) {
      if (!isExisting(error)) throw error
      if (Date.now() > deadline) throw new Error(`another fork's build of this run held ${lock} for over ${WAIT_LIMIT_MS / 1000} s`)
      await new Promise((resolve) => setTimeout(resolve, 200))
      continue
    }
    try {
      if (fs.existsSync(done)) return fs.readFileSync(done, "utf8")
      const built = await promisify(execFile)("npm", ["run", "build"], { cwd: PROJECT_ROOT, encoding: "utf8", maxBuffer: 16 * 1024 * 1024 }).catch(
        (error: unknown) => {
          const failed = error as { stdout?: string; stderr?: string }
          throw new Error(`npm run build failed:\n${failed.stdout ?? ""}${failed.stderr ?? String(error)}`)
        }
      )
      fs.writeFileSync(done, built.stdout + built.stderr)
      return built.stdout + built.stderr
    } finally {
      fs.rmSync(lock, { recursive: true, force: true })
    }
  }
}

/**
 * vitest globalSetup: names the run (CUSTODY_TEST_RUN, inherited by the test files' forks), so that the service
 * processes of the whole run start from one build (serviceBuild.ts), and removes that build's lock and marker after.
 */
import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import { buildFilesOfRun } from "./serviceBuild.js"

export default function setup() {
  const run = randomUUID()
  process.env.CUSTODY_TEST_RUN = run
  return () => {
    const { lock, done } = buildFilesOfRun(run)
    fs.rmSync(lock, { recursive: true, force: true })
    fs.rmSync(done, { force: true })
    delete process.env.CUSTODY_TEST_RUN
  }
}

/** Benchmarks of the built service (`BENCH_BUILT=1`, as `npm run start:prod` runs): the build made first, so it is never stale. */
import { spawnSync } from "node:child_process"
import { PROJECT_ROOT } from "../../test/support/processes.js"

export const benchBuilt = process.env.BENCH_BUILT === "1"

/** Runs `npm run build` (not with BENCH_KEEP_BUILD=1: dist/ as it stands); throws when it fails. */
export const buildNow = () => {
  if (process.env.BENCH_KEEP_BUILD === "1") return
  const run = spawnSync("npm", ["run", "build"], { cwd: PROJECT_ROOT, encoding: "utf8" })
  if (run.status !== 0) throw new Error(`npm run build failed:\n${run.stdout}${run.stderr}`)
}

/** Builds first when the bench runs the build (BENCH_BUILT=1). */
export const buildIfBenchBuilt = () => {
  if (benchBuilt) buildNow()
}

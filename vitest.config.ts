import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // One PostgreSQL server for the run: TEST_DATABASE_URL's, else an embedded one started here; and one build of
    // the service for the run's service processes (test/support/serviceBuild.ts).
    globalSetup: ["test/support/globalDatabase.ts", "test/support/globalBuild.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Tests share one ledger port range and one database per file; files run in parallel forks.
    pool: "forks",
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    // A fork runs file after file with the modules it already loaded: loading Effect, web3.js and the
    // service's modules again for every file took a third of a pass. Each file still gets its own database,
    // ledger and service; no test mocks a module, stubs a global or sets process.env (keep it so: module
    // state is shared by the files of one fork).
    isolate: false,
    reporters: ["default"]
  }
})

import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // One PostgreSQL server for the run: TEST_DATABASE_URL's, else an embedded one started here.
    globalSetup: ["test/support/globalDatabase.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Tests share one ledger port range and one database per file; files run in parallel forks.
    pool: "forks",
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    reporters: ["default"]
  }
})

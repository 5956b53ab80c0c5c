/**
 * The local ledger's settings as read through Config (src/ledger/ledgerConfig.ts): the documented defaults,
 * and a bad value refused naming its variable. No ledger is started.
 */
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Option } from "effect"
import { ledgerConfig } from "../../src/ledger/ledgerConfig.js"

const read = (env: Record<string, string>) => ledgerConfig.pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env)))))

describe("the ledger's settings", () => {
  it.effect("default to port 8899, .data, the local program ids, seeded pools and the server's timings", () =>
    Effect.gen(function* () {
      const settings = yield* read({})
      expect(settings).toMatchObject({ port: 8899, dataDir: ".data", escrowProgramId: "Escrow1111111111111111111111111111111111111", seedPools: true })
      expect(Option.isNone(settings.slotMs) && Option.isNone(settings.priceRefreshMs) && Option.isNone(settings.parentPid)).toBe(true)
    })
  )

  it.effect("read what the environment says", () =>
    Effect.gen(function* () {
      const settings = yield* read({ LEDGER_PORT: "9100", LEDGER_SEED_POOLS: "false", LEDGER_PRICE_REFRESH_MS: "0", LEDGER_PARENT_PID: "42", AMM_ONE_PROGRAM_ID: "Amm1" })
      expect(settings).toMatchObject({ port: 9100, seedPools: false, priceRefreshMs: Option.some(0), parentPid: Option.some(42) })
      expect(settings.ammProgramIds["amm-one"]).toBe("Amm1")
    })
  )

  it.effect.each([
    [{ LEDGER_PORT: "65535" }, "LEDGER_PORT must be a TCP port"],
    [{ LEDGER_PORT: "eighty" }, "LEDGER_PORT"],
    [{ LEDGER_PRICE_REFRESH_MS: "-1" }, "LEDGER_PRICE_REFRESH_MS must be a non-negative integer"]
  ] as const)("refuse %j naming the variable", ([env, message]) =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(read(env))
      expect(String(error)).toContain(message)
    })
  )
})

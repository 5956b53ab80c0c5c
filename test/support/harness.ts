/**
 * The usual set-up of a test file: a real ledger and the whole service on it, started before the
 * file's tests and stopped after them. Read `env.ledger` / `env.service` inside tests.
 */
import { afterAll, beforeAll } from "vitest"
import { startTestLedger, type TestLedgerOptions } from "./ledger.js"
import { type RunningService, startService } from "./service.js"

export interface ServiceWithLedger {
  ledger: Awaited<ReturnType<typeof startTestLedger>>
  service: RunningService
}

export const useServiceWithLedger = (options: { env?: Record<string, string>; ledger?: TestLedgerOptions } = {}): ServiceWithLedger => {
  const context = {} as ServiceWithLedger
  beforeAll(async () => {
    context.ledger = await startTestLedger(options.ledger)
    context.service = await startService({ rpcUrl: context.ledger.rpcUrl, ...(options.env === undefined ? {} : { env: options.env }) })
  })
  afterAll(async () => {
    await context.service?.stop()
    await context.ledger?.close()
  })
  return context
}

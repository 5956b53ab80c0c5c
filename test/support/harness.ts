/**
 * The usual set-up of a test file: a real ledger and the whole service on it, started before the
 * file's tests and stopped after them. Read `env.ledger` / `env.service` inside tests. This is the
 * suite's one way to start a service with a ledger; files that need several services, restarts or a
 * TestClock runtime start their own with startTestLedger / startService.
 */
import { afterAll, beforeAll } from "vitest"
import { startTestLedger, type TestLedgerOptions } from "./ledger.js"
import { type RunningService, startService } from "./service.js"

export interface ServiceWithLedger {
  ledger: Awaited<ReturnType<typeof startTestLedger>>
  service: RunningService
}

export const useServiceWithLedger = (
  options: { env?: Record<string, string>; ledger?: TestLedgerOptions; /** the start's own time limit, else vitest's hookTimeout */ timeoutMs?: number } = {}
): ServiceWithLedger => {
  const context = {} as ServiceWithLedger
  beforeAll(async () => {
    context.ledger = await startTestLedger(options.ledger)
    context.service = await startService({ rpcUrl: context.ledger.rpcUrl, ...(options.env === undefined ? {} : { env: options.env }) })
  }, options.timeoutMs)
  afterAll(async () => {
    await context.service?.stop()
    await context.ledger?.close()
  })
  return context
}

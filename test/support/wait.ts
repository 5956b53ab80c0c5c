/**
 * The suite's one polling helper (real time, not a TestClock): tests wait for a condition with it
 * instead of writing their own loop. Transactions have their own waits on top of it in transactions.ts.
 */
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** Polls `check` until it holds; throws `timed out waiting for <what>` once `timeoutMs` has passed. */
export const waitFor = async (
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutMs = 10_000,
  intervalMs = 50
): Promise<void> => {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(intervalMs)
  }
}

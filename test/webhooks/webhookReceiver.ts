/**
 * A webhook receiver on loopback for tests: every request is verified with the `standardwebhooks`
 * library (the one a subscriber would use) against the secrets the test gives it; `failNext` makes
 * it answer 500 that many times first. It records every attempt, verified or not.
 */
import * as http from "node:http"
import { Webhook } from "standardwebhooks"

export interface ReceivedAttempt {
  readonly webhookId: string
  readonly answered: number
  readonly verified: boolean
  readonly payload: { readonly type: string; readonly timestamp: string; readonly data: Record<string, any> } | undefined
}

export const startWebhookReceiver = async () => {
  const attempts: Array<ReceivedAttempt> = []
  let secrets: Array<string> = []
  let failNext = 0
  let failAlways = false
  const server = http.createServer((request, response) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8")
      const headers = Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k, String(v)]))
      let payload: ReceivedAttempt["payload"]
      for (const secret of secrets) {
        try {
          payload = new Webhook(secret).verify(body, headers) as ReceivedAttempt["payload"]
          break
        } catch {
          // try the next secret
        }
      }
      const fail = failAlways || failNext > 0
      if (failNext > 0) failNext--
      const answered = fail ? 500 : payload === undefined ? 401 : 204
      attempts.push({ webhookId: headers["webhook-id"] ?? "", answered, verified: payload !== undefined, payload })
      response.writeHead(answered).end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as { port: number }).port
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    attempts,
    /** Accepted deliveries (verified and answered 2xx). */
    accepted: () => attempts.filter((a) => a.answered === 204),
    setSecrets: (next: Array<string>) => void (secrets = next),
    failTimes: (n: number) => void (failNext = n),
    setFailAlways: (value: boolean) => void (failAlways = value),
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}
export type WebhookReceiver = Awaited<ReturnType<typeof startWebhookReceiver>>

/**
 * Small JSON-RPC servers for the RPC pool's tests, on 127.0.0.1 at a free port: each gets a handler of
 * the parsed request body (one request, or an array for a batch) and answers through `jsonAnswer`.
 * A test file closes its servers with `closeJsonRpcServers` (in afterAll).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"

const servers: Array<Server> = []

/** Starts a server that hands each request's parsed JSON body to `handle`; answers its URL. */
export const startJsonRpcServer = async (handle: (body: unknown, res: ServerResponse) => void): Promise<string> => {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = ""
    req.on("data", (chunk) => (raw += chunk))
    req.on("end", () => handle(JSON.parse(raw), res))
  })
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

export const jsonAnswer = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { "content-type": "application/json" })
  res.end(JSON.stringify(body))
}

export const closeJsonRpcServers = async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  }
}

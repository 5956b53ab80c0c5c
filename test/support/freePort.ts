/** Free TCP ports on 127.0.0.1, asked of the OS (bind to port 0, read it, release it). */
import * as net from "node:net"

const tryListen = (port: number) =>
  new Promise<number | null>((resolve) => {
    const server = net.createServer()
    server.once("error", () => resolve(null))
    server.listen(port, "127.0.0.1", () => {
      const address = server.address()
      const bound = typeof address === "object" && address !== null ? address.port : null
      server.close(() => resolve(bound))
    })
  })

export const freePort = async (): Promise<number> => {
  const port = await tryListen(0)
  if (port === null) throw new Error("no free port")
  return port
}

/** A port p with p + 1 free too (the ledger serves JSON-RPC on p and PubSub on p + 1). */
export const freePortPair = async (): Promise<number> => {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = await freePort()
    if (port < 65535 && (await tryListen(port + 1)) !== null) return port
  }
  throw new Error("no free port pair")
}

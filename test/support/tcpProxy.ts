/**
 * A TCP proxy for tests, on 127.0.0.1 at a free port, in front of one address. `silenceOpen` makes every
 * connection open now go quiet in both directions without closing it (what a failover or a dropped NAT
 * entry leaves a client with: a socket that never errors and never answers); connections made later pass.
 * `resetClients` resets the client's side of every open connection and keeps the server's side open (a
 * proxy or middlebox that dropped its client: the server goes on with what it was running, unheard).
 */
import * as net from "node:net"

export interface TcpProxy {
  readonly port: number
  /** The given URL with this proxy's host and port. */
  readonly urlFor: (url: string) => string
  readonly silenceOpen: () => void
  readonly resetClients: () => void
  readonly refuse: () => void
  readonly blackhole: () => void
  readonly admit: () => void
  readonly close: () => Promise<void>
}

export const startTcpProxy = async (targetHost: string, targetPort: number): Promise<TcpProxy> => {
  const open = new Set<{ silenced: boolean; keepServerSide: boolean; sockets: ReadonlyArray<net.Socket> }>()
  /** Server sides kept open by resetClients, until the proxy closes. */
  const orphaned = new Set<net.Socket>()
  let refusing = false
  let swallowing = false
  const held = new Set<net.Socket>()
  const server = net.createServer((inbound) => {
    if (refusing) return void inbound.destroy()
    if (swallowing) {
      held.add(inbound)
      inbound.on("error", () => {})
      inbound.on("close", () => held.delete(inbound))
      return
    }
    const outbound = net.connect(targetPort, targetHost)
    const pair = { silenced: false, keepServerSide: false, sockets: [inbound, outbound] }
    open.add(pair)
    inbound.on("data", (chunk) => void (pair.silenced || outbound.write(chunk)))
    outbound.on("data", (chunk) => void (pair.silenced || inbound.write(chunk)))
    const end = () => {
      open.delete(pair)
      inbound.destroy()
      if (pair.keepServerSide) orphaned.add(outbound)
      else outbound.destroy()
    }
    for (const socket of pair.sockets) {
      socket.on("error", end)
      socket.on("close", end)
    }
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as net.AddressInfo).port
  return {
    port,
    urlFor: (url) => {
      const proxied = new URL(url)
      proxied.hostname = "127.0.0.1"
      proxied.port = String(port)
      return proxied.toString()
    },
    silenceOpen: () => {
      for (const pair of open) pair.silenced = true
    },
    resetClients: () => {
      for (const pair of open) {
        pair.silenced = true
        pair.keepServerSide = true
        pair.sockets[0]!.resetAndDestroy()
      }
    },
    refuse: () => {
      refusing = true
      for (const pair of open) for (const socket of pair.sockets) socket.destroy()
    },
    blackhole: () => {
      swallowing = true
      for (const pair of open) for (const socket of pair.sockets) socket.destroy()
    },
    admit: () => {
      refusing = false
      swallowing = false
      for (const socket of held) socket.destroy()
    },
    close: async () => {
      for (const socket of [...held, ...orphaned]) socket.destroy()
      for (const pair of open) for (const socket of pair.sockets) socket.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  }
}

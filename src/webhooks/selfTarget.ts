/**
 * Webhook URLs that point at this service itself (issue 31): a host that is this machine (loopback, the
 * unspecified address, or one of its interfaces' addresses) with a port the service listens on
 * (src/gateway/listeningPorts.ts). Thirty such subscriptions and one transfer used to lock 127.0.0.1 out
 * of the gateway for every tenant (each delivery, having no key, counted as a failed authentication).
 * Refused when the subscription is made (400 naming `url`), and again on the addresses each delivery's
 * connection actually uses, so a name that resolves elsewhere at first and here later is refused too.
 */
import * as dns from "node:dns"
import { isIP, type LookupFunction } from "node:net"
import * as os from "node:os"
import { Agent } from "undici"

const LOOPBACK_V4 = /^127\./

/** True for an address of this machine: loopback, unspecified, or any address of its network interfaces. */
export const isThisMachine = (address: string): boolean => {
  const plain = address.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, "").toLowerCase()
  if (LOOPBACK_V4.test(plain) || plain === "::1" || plain === "0.0.0.0" || plain === "::") return true
  return Object.values(os.networkInterfaces()).some((entries) => (entries ?? []).some((entry) => entry.address.toLowerCase() === plain))
}

const refusal = (host: string, address: string) =>
  `url: ${host} is this service's own address (${address}) on a port it listens on; a webhook may not deliver to the service itself`

/** A delivery's connection refused by the guard (the fetch error's cause). */
export class SelfTargetRefused extends Error {}

/** Why `url` may not be subscribed (it resolves to this machine on one of our ports), or undefined. */
export const selfTargetRefusal = async (url: string, isOurPort: (url: URL) => boolean): Promise<string | undefined> => {
  const parsed = new URL(url)
  if (!isOurPort(parsed)) return undefined
  const host = parsed.hostname.replace(/^\[|\]$/g, "")
  if (isIP(host) !== 0) return isThisMachine(host) ? refusal(host, host) : undefined
  // A name that does not resolve now is accepted: every delivery is checked again on the addresses it connects to.
  const addresses = await dns.promises.lookup(host, { all: true }).catch(() => [])
  const own = addresses.find((entry) => isThisMachine(entry.address))
  return own === undefined ? undefined : refusal(host, own.address)
}

const notThisMachineLookup: LookupFunction = (hostname, options, callback) => {
  dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error !== null) return callback(error, "", 4)
    const own = addresses.find((entry) => isThisMachine(entry.address))
    if (own !== undefined) return callback(new SelfTargetRefused(refusal(hostname, own.address).replace(/^url: /, "")), "", 4)
    if (options.all === true) return (callback as unknown as (e: null, a: typeof addresses) => void)(null, addresses)
    const first = addresses[0]
    if (first === undefined) return callback(new Error(`${hostname} has no address`), "", 4)
    return callback(null, first.address, first.family)
  })
}

/** The HTTP agent of deliveries to one of our ports: it never connects to this machine. */
export const notThisMachineAgent = new Agent({ connect: { lookup: notThisMachineLookup } })

/** The guard's refusal inside a failed request, if that is why it failed. */
export const selfTargetRefusalIn = (error: unknown): string | undefined => {
  for (let cause = error; cause instanceof Error; cause = cause.cause) if (cause instanceof SelfTargetRefused) return cause.message
  return undefined
}

/**
 * How a delivery to `url` may connect: refused at once (a literal address of this machine on our port; a
 * literal address is never looked up), through the guarded agent (a name, on our port), or as usual.
 */
export const deliveryRoute = (url: string, isOurPort: (url: URL) => boolean):
  { readonly refused: string } | { readonly dispatcher: Agent | undefined } => {
  const parsed = new URL(url)
  if (!isOurPort(parsed)) return { dispatcher: undefined }
  const host = parsed.hostname.replace(/^\[|\]$/g, "")
  if (isIP(host) !== 0) return isThisMachine(host) ? { refused: refusal(host, host).replace(/^url: /, "") } : { dispatcher: undefined }
  return { dispatcher: notThisMachineAgent }
}

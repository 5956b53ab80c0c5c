/**
 * Where an x402_pay may send its request. An agent names the URL, so without a guard it could make the
 * service call its own gateway, the database's host, a cloud metadata endpoint or anything else on
 * the private network (SSRF). By default only public addresses are reached: the check runs on the
 * addresses the connection actually uses (a lookup hook of the HTTP agent), so a name that resolves
 * to a public address first and a private one later (DNS rebinding) is refused too.
 * X402_ALLOW_PRIVATE_HOSTS=true lifts it (a resource server on this machine or the private network).
 */
import { BlockList, isIP, type LookupFunction } from "node:net"
import * as dns from "node:dns"
import { Agent } from "undici"

const PRIVATE = new BlockList()
for (const [network, prefix] of [
  ["0.0.0.0", 8], ["10.0.0.0", 8], ["100.64.0.0", 10], ["127.0.0.0", 8], ["169.254.0.0", 16], ["172.16.0.0", 12],
  ["192.0.0.0", 24], ["192.168.0.0", 16], ["198.18.0.0", 15], ["224.0.0.0", 4], ["240.0.0.0", 4]
] as const) PRIVATE.addSubnet(network, prefix, "ipv4")
for (const [network, prefix] of [["::", 128], ["::1", 128], ["fc00::", 7], ["fe80::", 10], ["ff00::", 8]] as const) PRIVATE.addSubnet(network, prefix, "ipv6")

/** True for loopback, private, link-local, shared, multicast and unspecified addresses (IPv4-mapped IPv6 too). */
export const isPrivateAddress = (address: string): boolean => {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)
  if (mapped !== null) return PRIVATE.check(mapped[1]!, "ipv4")
  const family = isIP(address)
  if (family === 0) return true
  return PRIVATE.check(address, family === 4 ? "ipv4" : "ipv6")
}

const refusal = (host: string, address: string) =>
  `${host} is a private address (${address}); set X402_ALLOW_PRIVATE_HOSTS=true to let x402_pay reach such hosts`

/** A connection refused by the guard (the fetch error's cause). */
export class PrivateAddressRefused extends Error {}

/** The guard's refusal inside a failed request, if that is why it failed. */
export const privateAddressRefusal = (error: unknown): string | undefined => {
  for (let cause = error; cause instanceof Error; cause = cause.cause) if (cause instanceof PrivateAddressRefused) return cause.message
  return undefined
}

/** The URL's refusal before any request: not http(s), or a literal private address. */
export const resourceUrlRefusal = (url: string, allowPrivate: boolean): string | undefined => {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return "url is not a valid URL"
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") return "url must be http or https"
  const host = parsed.hostname.replace(/^\[|\]$/g, "")
  if (!allowPrivate && isIP(host) !== 0 && isPrivateAddress(host)) return refusal(host, host)
  return undefined
}

/** The name lookup of the guarded agent: fails the connection when any address it would use is private. */
const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error !== null) return callback(error, "", 4)
    const blocked = addresses.find((entry) => isPrivateAddress(entry.address))
    if (blocked !== undefined) return callback(new PrivateAddressRefused(refusal(hostname, blocked.address)), "", 4)
    if (options.all === true) return (callback as unknown as (e: null, a: typeof addresses) => void)(null, addresses)
    const first = addresses[0]
    if (first === undefined) return callback(new Error(`${hostname} has no address`), "", 4)
    return callback(null, first.address, first.family)
  })
}

/** The HTTP agent x402_pay requests go through: public addresses only, unless private ones are allowed. */
export const resourceAgent = (allowPrivate: boolean) => new Agent(allowPrivate ? {} : { connect: { lookup: publicOnlyLookup } })

/**
 * x402_pay's guard against SSRF (src/protocols/x402/resourceAddress.ts): an agent names the URL, so by
 * default the request reaches only public addresses, checked on the addresses the connection uses.
 * Real sockets: a server on loopback that the guarded agent must not reach, and reaches when allowed.
 */
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { fetch } from "undici"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { isPrivateAddress, privateAddressRefusal, resourceAgent, resourceUrlRefusal } from "../../src/protocols/x402/resourceAddress.js"

let server: Server
let requests = 0
let port: number

beforeAll(async () => {
  server = createServer((_request, response) => {
    requests++
    response.end("internal")
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  port = (server.address() as AddressInfo).port
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

describe("x402 resource addresses", () => {
  it("knows private, loopback, link-local and mapped addresses from public ones", () => {
    for (const address of ["127.0.0.1", "10.1.2.3", "172.20.0.1", "192.168.1.1", "169.254.169.254", "100.64.0.1", "0.0.0.0", "::1", "fd00::1", "fe80::1", "::ffff:127.0.0.1"]) {
      expect(isPrivateAddress(address), address).toBe(true)
    }
    for (const address of ["1.1.1.1", "8.8.8.8", "2606:4700:4700::1111", "::ffff:8.8.8.8"]) expect(isPrivateAddress(address), address).toBe(false)
  })

  it("refuses a literal private address or another scheme before any request", () => {
    expect(resourceUrlRefusal(`http://127.0.0.1:${port}/r`, false)).toMatch(/^127\.0\.0\.1 is a private address .*X402_ALLOW_PRIVATE_HOSTS/)
    expect(resourceUrlRefusal("http://[::1]/r", false)).toMatch(/private address/)
    expect(resourceUrlRefusal("http://169.254.169.254/latest/meta-data", false)).toMatch(/private address/)
    expect(resourceUrlRefusal("file:///etc/passwd", false)).toBe("url must be http or https")
    expect(resourceUrlRefusal("https://api.example.com/paid", false)).toBeUndefined()
    expect(resourceUrlRefusal(`http://127.0.0.1:${port}/r`, true)).toBeUndefined()
  })

  it("refuses a name that resolves to a private address at connection time; reaches it when allowed", async () => {
    const before = requests
    const refused = await fetch(`http://localhost:${port}/r`, { dispatcher: resourceAgent(false) }).then(
      () => undefined,
      (error: unknown) => privateAddressRefusal(error)
    )
    expect(refused).toMatch(/^localhost is a private address/)
    expect(requests).toBe(before)
    const allowed = await fetch(`http://localhost:${port}/r`, { dispatcher: resourceAgent(true) })
    expect(await allowed.text()).toBe("internal")
    expect(requests).toBe(before + 1)
  })
})

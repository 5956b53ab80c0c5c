// Shared setup for the ledger tests: free ports and throwaway data directories.
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { freePortPair } from "../support/freePort.js"

/**
 * A free port pair (RPC, RPC + 1), checked free and below the OS's ephemeral range: test files run in
 * parallel, and a random pick once collided with another file's ledger (EADDRINUSE in CI).
 */
export const pickPort = freePortPair

export function tempDataDir(): string {
  return mkdtempSync(join(tmpdir(), "ledger-test-"))
}

export interface RpcReply<T> {
  readonly id: unknown
  readonly result?: T
  readonly error?: { readonly code: number; readonly message: string; readonly data?: { err?: unknown; logs?: string[] } }
}

/** Posts a raw JSON-RPC body (object, batch array, or text) and returns the decoded reply. */
export async function rawRpc<T = unknown>(rpcUrl: string, body: unknown): Promise<RpcReply<T>> {
  const response = await fetch(rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body)
  })
  return (await response.json()) as RpcReply<T>
}

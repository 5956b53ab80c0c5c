// Shared setup for the ledger tests: distinct ports per test file and throwaway data directories.
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

/** A port pair (RPC, RPC + 1) in 18000-18999 that differs between test files run in parallel. */
export function pickPort(): number {
  return 18000 + 2 * Math.floor(Math.random() * 490)
}

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

/**
 * How the examples reach the service: CUSTODY_URL (default http://127.0.0.1:3000) and CUSTODY_API_KEY (what
 * `npm start` prints, or any key with the scopes the example uses). The SDK is imported by path here; another
 * project installs it (`npm install /path/to/agent-custody/sdk`, or the tarball `npm pack` makes there).
 */
import { CustodyClient } from "../sdk/src/index.js"

export const connect = () => {
  const apiKey = process.env.CUSTODY_API_KEY
  if (apiKey === undefined || apiKey === "") throw new Error("set CUSTODY_API_KEY (npm start prints a development key)")
  return new CustodyClient({ baseUrl: process.env.CUSTODY_URL ?? "http://127.0.0.1:3000", apiKey })
}

/** A fresh address to pay (nobody holds its key: the lamports are spent for the demonstration). */
export const someAddress = async () => {
  const { Keypair } = await import("@solana/web3.js")
  return Keypair.generate().publicKey.toBase58()
}

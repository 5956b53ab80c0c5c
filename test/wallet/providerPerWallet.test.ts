/**
 * The backend is recorded per wallet (issue 13 item 5): a wallet created under encrypted-file keeps
 * signing after the service restarts with another default backend, and each wallet reports its own
 * provider and keyProvenance. Without the old backend's secret the old wallet is refused at `sign`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestLedger } from "../support/ledger.js"
import { makeClient } from "../support/client.js"
import { type RunningService, startService } from "../support/service.js"
import { createFundedWallet, expectTransferSignedBy, transferSol } from "./custodyChecks.js"

let ledger: Awaited<ReturnType<typeof startTestLedger>>
let service: RunningService | undefined

beforeAll(async () => {
  ledger = await startTestLedger()
})
afterAll(async () => {
  await service?.stop()
  await ledger?.close()
})

describe("provider recorded per wallet", () => {
  it("keeps signing with the recorded backend after the default changes", async () => {
    service = await startService({ rpcUrl: ledger.rpcUrl })
    const old = await createFundedWallet(service.baseUrl, "file wallet")
    expect(old).toMatchObject({ provider: "local-dev", keyProvenance: { backend: "encrypted-file", custody: "local" } })
    const { dataDir, database } = service
    await service.stop({ keepData: true })

    service = await startService({ rpcUrl: ledger.rpcUrl, reuse: { dataDir, database }, env: { WALLET_SIGNER_BACKEND: "memory" } })
    const fresh = await createFundedWallet(service.baseUrl, "memory wallet")
    expect(fresh).toMatchObject({ provider: "local-memory", keyProvenance: { backend: "memory", custody: "local" } })
    const reread = await makeClient(service.baseUrl).wallets.get({ params: { walletId: old.id } })
    expect(reread.body.data).toMatchObject({ provider: "local-dev", keyProvenance: { backend: "encrypted-file" } })
    await expectTransferSignedBy(service.baseUrl, ledger.rpcUrl, old)
    await expectTransferSignedBy(service.baseUrl, ledger.rpcUrl, fresh)
    await service.stop({ keepData: true })

    // Without WALLET_KEY_ENCRYPTION_SECRET the file wallet cannot sign: it fails at `sign`, saying why.
    service = await startService({
      rpcUrl: ledger.rpcUrl,
      reuse: { dataDir, database },
      env: { WALLET_SIGNER_BACKEND: "memory", WALLET_KEY_ENCRYPTION_SECRET: "" }
    })
    const refused = await transferSol(service.baseUrl, old.id, fresh.publicKey, 1_000_000)
    expect(refused.body.data).toMatchObject({ status: "failed", failedAt: "sign" })
    expect(refused.body.data.error).toContain("encrypted-file is not configured")
  }, 300_000)
})

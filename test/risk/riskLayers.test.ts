/**
 * Deployment-wide protocol risk config (issue 34 item 4) through the pipeline on the local ledger: a config
 * written with a deployment-wide key (tenant `*`) is the default every tenant inherits; a tenant's own config
 * may tighten it (and then its bound applies) but a looser write is refused naming the field, changing nothing;
 * gaslessEligible set deployment-wide holds for every tenant that did not set its own;
 * GET shows which layer each value comes from.
 */
import { Keypair } from "@solana/web3.js"
import { describe, expect, it } from "vitest"
import { dataOf, makeClient } from "../support/client.js"
import { useServiceWithLedger } from "../support/harness.js"
import { ADMIN_KEY } from "../support/service.js"
import { createWallet, submit } from "../support/transactions.js"

const ACME = { "x-api-key": "acme-key" }
const GLOBEX = { "x-api-key": "globex-key" }
const env = useServiceWithLedger({ env: { API_GATEWAY_API_KEYS: `${ADMIN_KEY}:*:all;acme-key:acme:all;globex-key:globex:all` } })

const SYSTEM_PROGRAM = "11111111111111111111111111111111"
const COMPUTE_BUDGET = "ComputeBudget111111111111111111111111111111"
const OTHER_PROGRAM = "TokenkegQfeZyiNwAJbNbGqPVZowNR6ZmUanK95Tb8"

const transfer = (headers: Record<string, string>, walletId: string, lamports: number) =>
  submit(env.service.baseUrl, { walletId, type: "transfer_sol", protocol: "system-program", intent: { destination: Keypair.generate().publicKey.toBase58(), lamports } }, headers, "?waitMs=10000")

describe("deployment-wide protocol risk config", () => {
  it("is inherited by every tenant, tightened by a tenant's own, never loosened; GET shows each value's layer", async () => {
    const deployment = makeClient(env.service.baseUrl)
    const acme = makeClient(env.service.baseUrl, ACME)
    const acmeWallet = await createWallet(env.service.baseUrl, 1_000_000_000, ACME)
    const globexWallet = await createWallet(env.service.baseUrl, 1_000_000_000, GLOBEX)

    // The deployment's operator bounds every tenant: at most 10% of the balance per transfer, only two programs.
    const put = await deployment.risk.putProtocol({ params: { protocol: "system-program" }, body: { maxPoolConcentrationBps: 1000, allowedPrograms: [SYSTEM_PROGRAM, COMPUTE_BUDGET] } })
    expect(put.status).toBe(200)
    expect(dataOf(put)).toMatchObject({ maxPoolConcentrationBps: 1000, layers: { maxPoolConcentrationBps: "deployment", allowedPrograms: "deployment", maxSlippageBps: "default" } })

    // Inherited: a tenant that never configured the protocol sees and gets the deployment's bounds.
    const inherited = dataOf(await acme.risk.getProtocol({ params: { protocol: "system-program" } }))
    expect(inherited).toMatchObject({ maxPoolConcentrationBps: 1000, allowedPrograms: [SYSTEM_PROGRAM, COMPUTE_BUDGET] })
    expect(inherited.layers).toMatchObject({ maxPoolConcentrationBps: "deployment", allowedPrograms: "deployment", requireOracleForSwap: "default" })
    for (const [headers, walletId] of [[ACME, acmeWallet.id], [GLOBEX, globexWallet.id]] as const) {
      const denied = await transfer(headers, walletId, 200_000_000)
      expect(denied.status).toBe(403)
      expect(denied.body.error).toContain("above maxPoolConcentrationBps 1000")
      expect((await transfer(headers, walletId, 50_000_000)).data?.status).toBe("confirmed")
    }

    // Loosening is refused naming the field, and changes nothing.
    for (const [body, field] of [[{ maxPoolConcentrationBps: 5000 }, "maxPoolConcentrationBps"], [{ allowedPrograms: [SYSTEM_PROGRAM, OTHER_PROGRAM] }, "allowedPrograms"]] as const) {
      const refused = await acme.risk.putProtocol({ params: { protocol: "system-program" }, body })
      expect(refused.status).toBe(400)
      expect(refused.body).toMatchObject({ errorCode: "VALIDATION_ERROR" })
      expect(refused.body.error).toContain(field)
    }
    expect(dataOf(await acme.risk.getProtocol({ params: { protocol: "system-program" } }))).toEqual(inherited)

    // Tightening applies to that tenant only, and GET says the value is the tenant's.
    const tightened = await acme.risk.putProtocol({ params: { protocol: "system-program" }, body: { maxPoolConcentrationBps: 500 } })
    expect(tightened.status).toBe(200)
    expect(dataOf(tightened)).toMatchObject({ maxPoolConcentrationBps: 500, layers: { maxPoolConcentrationBps: "tenant", allowedPrograms: "deployment" } })
    expect((await transfer(ACME, acmeWallet.id, 70_000_000)).body.error).toContain("above maxPoolConcentrationBps 500")
    expect((await transfer(GLOBEX, globexWallet.id, 70_000_000)).data?.status).toBe("confirmed")

    // The deployment tightens below the tenant's value: the tighter wins, shown as the deployment's.
    await deployment.risk.putProtocol({ params: { protocol: "system-program" }, body: { maxPoolConcentrationBps: 300 } })
    expect(dataOf(await acme.risk.getProtocol({ params: { protocol: "system-program" } }))).toMatchObject({ maxPoolConcentrationBps: 300, layers: { maxPoolConcentrationBps: "deployment" } })
    expect((await transfer(ACME, acmeWallet.id, 40_000_000)).body.error).toContain("above maxPoolConcentrationBps 300")

    // The deployment's own layer, and clearing it: tenants are back to their own configs.
    expect(dataOf(await deployment.risk.getProtocol({ params: { protocol: "system-program" } }))).toMatchObject({ maxPoolConcentrationBps: 300 })
    await deployment.risk.putProtocol({ params: { protocol: "system-program" }, body: { maxPoolConcentrationBps: null, allowedPrograms: [] } })
    expect((await transfer(GLOBEX, globexWallet.id, 200_000_000)).data?.status).toBe("confirmed")
    expect((await transfer(ACME, acmeWallet.id, 70_000_000)).body.error).toContain("above maxPoolConcentrationBps 500")
  }, 120_000)

  it("gaslessEligible set deployment-wide holds for every tenant that did not set its own; a tenant may turn it off, not on against a deployment-wide false", async () => {
    const deployment = makeClient(env.service.baseUrl)
    const acme = makeClient(env.service.baseUrl, ACME)
    const globex = makeClient(env.service.baseUrl, GLOBEX)
    const gasless = async (client: typeof acme) => dataOf(await client.risk.getProtocol({ params: { protocol: "spl-token" } }))

    expect(dataOf(await deployment.risk.putProtocol({ params: { protocol: "spl-token" }, body: { gaslessEligible: true } }))).toMatchObject({ gaslessEligible: true })
    expect(await gasless(acme)).toMatchObject({ gaslessEligible: true, layers: { gaslessEligible: "deployment" } })
    // A tenant's write of another field does not turn it off; its own false does, for that tenant only.
    await acme.risk.putProtocol({ params: { protocol: "spl-token" }, body: { maxSlippageBps: 50 } })
    expect(await gasless(acme)).toMatchObject({ gaslessEligible: true, maxSlippageBps: 50, layers: { gaslessEligible: "deployment", maxSlippageBps: "tenant" } })
    await acme.risk.putProtocol({ params: { protocol: "spl-token" }, body: { gaslessEligible: false } })
    expect(await gasless(acme)).toMatchObject({ gaslessEligible: false, layers: { gaslessEligible: "tenant" } })
    expect(await gasless(globex)).toMatchObject({ gaslessEligible: true, layers: { gaslessEligible: "deployment" } })

    // A deployment-wide false wins over a tenant's earlier true, and a tenant's true against it is refused.
    await globex.risk.putProtocol({ params: { protocol: "spl-token" }, body: { gaslessEligible: true } })
    await deployment.risk.putProtocol({ params: { protocol: "spl-token" }, body: { gaslessEligible: false } })
    expect(await gasless(globex)).toMatchObject({ gaslessEligible: false, layers: { gaslessEligible: "deployment" } })
    const refused = await globex.risk.putProtocol({ params: { protocol: "spl-token" }, body: { gaslessEligible: true } })
    expect(refused.status).toBe(400)
    expect(refused.body.error).toContain("gaslessEligible: true is looser than the deployment-wide false")
  })
})

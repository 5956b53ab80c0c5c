/**
 * Policy and protocol risk through the real pipeline (HTTP, ledger, database): 50 parallel transfers
 * against a daily limit admitting exactly 7, a require_approval policy stopping at the approval gate
 * (202), and protocol risk configs denying (programs not allowed; amount too concentrated against
 * the pre-balance). Swaps have no adapter yet, so slippage is covered by the evaluator's own tests.
 */
import { Keypair } from "@solana/web3.js"
import { describe, expect, it } from "vitest"
import { verifyExecutionProof } from "../../src/pipeline/proof.js"
import { useServiceWithLedger } from "../support/harness.js"
import { makeClient } from "../support/client.js"
import { createWallet, submit, waitSettled } from "../support/transactions.js"
import { defined } from "../support/defined.js"

const RISK_TENANT = { "x-api-key": "key-risk" }
const TOKEN_PROGRAM = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA"
const env = useServiceWithLedger({
  env: { API_GATEWAY_API_KEYS: "test-admin-key:*:all;key-risk:tenant-risk:all", API_GATEWAY_RATE_LIMIT_PER_MINUTE: "100000" },
  timeoutMs: 60_000
})

const transfer = (walletId: string, lamports: number, headers?: Record<string, string>, extra: Record<string, unknown> = {}) =>
  submit(env.service.baseUrl, { walletId, type: "transfer_sol", protocol: "system-program", intent: { destination: Keypair.generate().publicKey.toBase58(), lamports }, ...extra }, headers)

describe("policy through the pipeline", () => {
  it("confirms exactly 7 of 50 parallel transfers against a daily limit admitting 7; the rest fail naming the limit", async () => {
    const wallet = await createWallet(env.service.baseUrl, 2_000_000_000)
    const policy = await makeClient(env.service.baseUrl).policies.create({ body: {
      walletId: wallet.id, name: "daily", rules: [{ type: "spending_limit", maxLamportsPerDay: 7_000_000 }]
    } })
    expect(policy.status).toBe(201)
    const created = await Promise.all(Array.from({ length: 50 }, () => transfer(wallet.id, 1_000_000)))
    for (const c of created) expect([201, 202]).toContain(c.status)
    const settled = await Promise.all(created.map((c) => waitSettled(env.service.baseUrl, c.body.data.id, 180_000)))
    const txs = settled.map((s) => s.body.data as { status: string; errorCode: string | null; error: string | null })
    expect(txs.filter((t) => t.status === "confirmed")).toHaveLength(7)
    const failed = txs.filter((t) => t.status === "failed")
    expect(failed).toHaveLength(43)
    for (const t of failed) {
      expect(t.errorCode).toBe("POLICY_VIOLATION")
      expect(t.error).toContain("maxLamportsPerDay 7000000")
    }
  }, 240_000)

  it("records a denied transfer's build, simulation and every stage in order, with a failure proof that recomputes from /replay", async () => {
    const wallet = await createWallet(env.service.baseUrl, 1_000_000_000)
    await makeClient(env.service.baseUrl).policies.create({ body: { walletId: wallet.id, name: "tiny", rules: [{ type: "spending_limit", maxLamportsPerDay: 1_000 }] } })
    const denied = (await waitSettled(env.service.baseUrl, (await transfer(wallet.id, 1_000_000)).body.data.id, 60_000)).body.data
    expect(denied).toMatchObject({ status: "failed", errorCode: "POLICY_VIOLATION", failedAt: "policy", policyDecision: { decision: "deny" } })
    expect(denied.history.map((h: { status: string }) => h.status)).toEqual(["pending", "simulating", "policy_eval", "failed"])
    expect(denied.preBalanceLamports).toBe(1_000_000_000)

    const replay = (await makeClient(env.service.baseUrl).transactions.replay({ params: { txId: denied.id } })).body.data
    expect(replay.simulation).toMatchObject({ ok: true })
    expect(verifyExecutionProof(defined(replay.proof, "the proof"), { intent: replay.request.intent, policyDecision: replay.policyDecision, simulation: replay.simulation })).toEqual({
      valid: true, mismatches: []
    })
  }, 60_000)

  it("stops a transfer above the approval threshold at the approval gate with 202", async () => {
    const wallet = await createWallet(env.service.baseUrl, 1_000_000_000)
    await makeClient(env.service.baseUrl).policies.create({ body: {
      walletId: wallet.id, name: "approval", rules: [{ type: "spending_limit", requireApprovalAboveLamports: 500_000 }]
    } })
    const created = await submit(env.service.baseUrl, {
      walletId: wallet.id, type: "transfer_sol", protocol: "system-program", intent: { destination: Keypair.generate().publicKey.toBase58(), lamports: 1_000_000 }
    }, undefined, "?waitMs=10000")
    expect(created.status).toBe(202)
    expect(created.body.data).toMatchObject({ status: "approval_gate", awaitingApproval: true, policyDecision: { decision: "require_approval" } })
    expect(created.body.data.policyDecision?.reasons.join(" ")).toContain("requireApprovalAboveLamports 500000")
  }, 60_000)

  it("denies by the protocol risk config: a used program not allowed, then a too concentrated amount", async () => {
    const wallet = await createWallet(env.service.baseUrl, 1_000_000_000, RISK_TENANT)
    const put = await makeClient(env.service.baseUrl, RISK_TENANT).risk.putProtocol({ params: { protocol: "system-program" }, body: { allowedPrograms: [TOKEN_PROGRAM] } })
    expect(put.status).toBe(200)
    const refused = await waitSettled(env.service.baseUrl, (await transfer(wallet.id, 1_000_000, RISK_TENANT)).body.data.id, 60_000, RISK_TENANT)
    expect(refused.body.data).toMatchObject({ status: "failed", errorCode: "POLICY_VIOLATION", failedAt: "policy" })
    expect(refused.body.data.error).toMatch(/protocol risk .*program .*11111111111111111111111111111111 is not allowed/)

    await makeClient(env.service.baseUrl, RISK_TENANT).risk.putProtocol({ params: { protocol: "system-program" }, body: { allowedPrograms: [], maxPoolConcentrationBps: 1_000 } })
    const small = await waitSettled(env.service.baseUrl, (await transfer(wallet.id, 1_000_000, RISK_TENANT)).body.data.id, 60_000, RISK_TENANT)
    expect(small.body.data.status).toBe("confirmed")
    const large = await waitSettled(env.service.baseUrl, (await transfer(wallet.id, 200_000_000, RISK_TENANT)).body.data.id, 60_000, RISK_TENANT)
    expect(large.body.data).toMatchObject({ status: "failed", errorCode: "POLICY_VIOLATION" })
    expect(large.body.data.error).toContain("maxPoolConcentrationBps 1000")
  }, 120_000)
})

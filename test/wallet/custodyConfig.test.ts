/**
 * Start-up configuration of key custody: each backend names the variable it misses; mpc wants three
 * distinct node secrets; a process that signs through a remote wallet engine holds no key secret.
 */
import { ConfigProvider, Effect, Exit } from "effect"
import { describe, expect, it } from "vitest"
import { AppConfig } from "../../src/config.js"

const BASE = { API_GATEWAY_API_KEYS: "k:*:all", WALLET_KEY_ENCRYPTION_SECRET: "s" }

const load = (env: Record<string, string>) =>
  Effect.runPromiseExit(AppConfig.pipe(Effect.provide(AppConfig.Default), Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries({ ...BASE, ...env }))))))

const refusal = async (env: Record<string, string>) => {
  const exit = await load(env)
  expect(Exit.isFailure(exit)).toBe(true)
  return Exit.isFailure(exit) ? String(exit.cause) : ""
}

describe("custody configuration", () => {
  it.each<[string, Record<string, string>, RegExp]>([
    ["kms without its master secret", { WALLET_SIGNER_BACKEND: "kms" }, /WALLET_KMS_MASTER_SECRET is required/],
    ["hsm without a PIN", { WALLET_SIGNER_BACKEND: "hsm", WALLET_HSM_MODULE: "/usr/lib/softhsm/libsofthsm2.so" }, /WALLET_HSM_PIN is required/],
    ["hsm without a module", { WALLET_SIGNER_BACKEND: "hsm", WALLET_HSM_PIN: "1234" }, /WALLET_HSM_MODULE .* is required/],
    ["mpc without node secrets", { WALLET_SIGNER_BACKEND: "mpc" }, /three distinct node secrets/],
    ["mpc with two secrets", { WALLET_SIGNER_BACKEND: "mpc", WALLET_MPC_NODE_SECRETS: "a,b" }, /WALLET_MPC_NODE_SECRETS/],
    ["mpc with a repeated secret", { WALLET_MPC_NODE1_SECRET: "a", WALLET_MPC_NODE2_SECRET: "a", WALLET_MPC_NODE3_SECRET: "b" }, /three distinct node secrets/],
    ["mpc node URLs that are not three", { WALLET_SIGNER_BACKEND: "mpc", WALLET_MPC_NODE_URLS: "http://127.0.0.1:3010,http://127.0.0.1:3011", WALLET_MPC_INTERNAL_TOKEN: "t" }, /WALLET_MPC_NODE_URLS must list three/],
    ["mpc node URLs without the internal token", { WALLET_SIGNER_BACKEND: "mpc", WALLET_MPC_NODE_URLS: "http://a:1,http://b:2,http://c:3" }, /WALLET_MPC_INTERNAL_TOKEN is required/],
    ["a node secret beside mpc node URLs", { WALLET_SIGNER_BACKEND: "mpc", WALLET_MPC_NODE_URLS: "http://a:1,http://b:2,http://c:3", WALLET_MPC_INTERNAL_TOKEN: "t", WALLET_MPC_NODE_SECRETS: "a,b,c" }, /node secrets belong to the node processes/],
    ["the mpc token beside a remote engine", { WALLET_ENGINE_URL: "http://127.0.0.1:3002", WALLET_ENGINE_INTERNAL_TOKEN: "t", WALLET_KEY_ENCRYPTION_SECRET: "", WALLET_MPC_INTERNAL_TOKEN: "m" }, /WALLET_MPC_INTERNAL_TOKEN must not be set/],
    ["a remote engine without the internal token", { WALLET_ENGINE_URL: "http://127.0.0.1:3002", WALLET_KEY_ENCRYPTION_SECRET: "" }, /WALLET_ENGINE_INTERNAL_TOKEN is required/],
    ["a key secret beside a remote engine", { WALLET_ENGINE_URL: "http://127.0.0.1:3002", WALLET_ENGINE_INTERNAL_TOKEN: "t" }, /WALLET_KEY_ENCRYPTION_SECRET must not be set where WALLET_ENGINE_URL is/],
    ["an mpc secret beside a remote engine", { WALLET_ENGINE_URL: "http://127.0.0.1:3002", WALLET_ENGINE_INTERNAL_TOKEN: "t", WALLET_KEY_ENCRYPTION_SECRET: "", WALLET_MPC_NODE1_SECRET: "x" }, /WALLET_MPC_NODE1_SECRET must not be set/]
  ])("refuses %s, naming the variable", async (_why, env, message) => {
    const text = await refusal(env)
    expect(text).toMatch(message)
    for (const value of Object.values(env)) if (value.length > 3) expect(text.includes(`"${value}"`)).toBe(false)
  })

  it("accepts each backend with its configuration, and a remote engine with only its token", async () => {
    for (const env of <Array<Record<string, string>>>[
      { WALLET_SIGNER_BACKEND: "kms", WALLET_KMS_MASTER_SECRET: "m" },
      { WALLET_SIGNER_BACKEND: "hsm", WALLET_HSM_PIN: "1234", WALLET_HSM_MODULE: "/usr/lib/softhsm/libsofthsm2.so" },
      { WALLET_SIGNER_BACKEND: "mpc", WALLET_MPC_NODE_SECRETS: "a,b,c" },
      { WALLET_ENGINE_URL: "http://127.0.0.1:3002", WALLET_ENGINE_INTERNAL_TOKEN: "t", WALLET_KEY_ENCRYPTION_SECRET: "" }
    ]) {
      expect(Exit.isSuccess(await load(env))).toBe(true)
    }
  })
})

/**
 * Issued keys on a database whose LISTEN never delivers (PgBouncer in transaction mode, a proxy that drops
 * NOTIFY): the key ring starts anyway, at the end of its 5 s wait for its own NOTIFY, and learns an issued
 * key and a revocation by reading every key each second. The database is real; only the notifications are
 * deaf (a LISTEN that hears nothing, as such a pooler gives).
 */
import { Effect, Layer, Stream } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Notifications } from "../../src/db/notifications.js"
import { newKey } from "../../src/keys/keyFormat.js"
import { IssuedKeys } from "../../src/keys/issuedKeys.js"
import { ApiKeyRepo } from "../../src/keys/keyRepo.js"
import { ActorRegistry } from "../../src/supervision/actorRegistry.js"
import { createTestDatabase, type TestDatabase } from "../support/database.js"
import { databaseRuntime } from "../support/databaseRuntime.js"
import { waitFor } from "../support/wait.js"

const DeafNotifications = Layer.succeed(Notifications, Notifications.make({ listen: () => Stream.never }))

let database: TestDatabase
let service: ReturnType<typeof databaseRuntime<IssuedKeys | ApiKeyRepo, never>>

beforeAll(async () => {
  database = await createTestDatabase()
  service = databaseRuntime(database.url, Layer.merge(IssuedKeys.Default, ApiKeyRepo.Default).pipe(Layer.provide(Layer.merge(DeafNotifications, ActorRegistry.Default))))
})

afterAll(async () => {
  await service?.dispose()
  await database?.drop()
})

describe("issued keys when NOTIFY never arrives", () => {
  it("start after the bounded wait, and learn an issue and a revocation within two seconds", async () => {
    const started = Date.now()
    const issued = await service.runtime.runPromise(IssuedKeys)
    const startMs = Date.now() - started
    expect(startMs).toBeGreaterThanOrEqual(4_500)
    expect(startMs).toBeLessThan(15_000)

    const key = newKey()
    await service.runtime.runPromise(
      Effect.flatMap(ApiKeyRepo, (repo) =>
        repo.insert({ id: key.id, tenantId: "tenant-a", scopes: ["wallets"], agentId: null, label: null, digest: key.digest, createdBy: "test", expiresAt: null, rotatedFrom: null })
      )
    )
    await waitFor("the issued key without NOTIFY", async () => issued.find(key.secret, Date.now())._tag === "Found", 2_000, 20)

    await service.runtime.runPromise(Effect.flatMap(ApiKeyRepo, (repo) => repo.revoke(null, key.id, "test", "no NOTIFY")))
    await waitFor("the revocation without NOTIFY", async () => issued.find(key.secret, Date.now())._tag === "Refused", 2_000, 20)
  }, 30_000)
})

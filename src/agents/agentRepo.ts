/**
 * Agent rows in SQL. Caller-facing reads filter by tenant (readTenant null = every tenant); the
 * `*System` reads are for the scheduler and supervisor, which act for every tenant. Status changes are
 * conditional UPDATEs (`WHERE status IN (...)`), so two instances never both apply one transition.
 */
import { SqlClient } from "@effect/sql"
import { Clock, Effect, Schema } from "effect"
import { Autonomy, type AgentStatus, type ExecutionMode } from "../../schemas/agent.js"
import type { TransactionType } from "../../schemas/intent.js"
import type { ProtocolId } from "../../schemas/protocol.js"
import { makeKeyset, type PageRequest, withPageKey } from "../db/keysetPage.js"
import { makeStatementBatch } from "../db/statementBatch.js"
import { AGENT_COLUMNS, AgentRow, toStoredAgent, type StoredAgent } from "./agentRow.js"
import { decodeRows } from "../db/rowDecoding.js"

const KeyedAgentRow = Schema.Struct({ ...AgentRow.fields, idempotency_request: Schema.NullOr(Schema.String) })

export interface NewAgent {
  readonly id: string
  readonly tenantId: string
  readonly name: string
  readonly walletId: string
  readonly executionMode: ExecutionMode
  readonly allowedIntents: ReadonlyArray<TransactionType>
  readonly allowedProtocols: ReadonlyArray<ProtocolId> | undefined
  readonly budgetLamports: bigint | undefined
  readonly autonomy: Autonomy
  /** The create's idempotency key and the request it stands for (see `byIdempotencyKey`). */
  readonly idempotency?: { readonly key: string; readonly request: string } | undefined
}

/** A capabilities update; undefined fields keep their value. */
export interface CapabilitiesChange {
  readonly allowedIntents: ReadonlyArray<TransactionType>
  readonly allowedProtocols?: ReadonlyArray<ProtocolId>
  readonly executionMode?: ExecutionMode
  readonly autonomy?: Autonomy
  readonly budgetLamports?: bigint
}

const encodeAutonomy = Schema.encodeSync(Autonomy)

const AgentPageRow = withPageKey(AgentRow)

/** An agent of a batched read by wallets, with the ordinal of the input it answers. */
const AgentRowInBatch = Schema.Struct({ ...AgentRow.fields, batch_ord: Schema.Number })

const AgentIdRow = Schema.Struct({ id: Schema.String })

/** UTC day key 'YYYY-MM-DD' of the Effect clock (TestClock-friendly). */
export const utcToday = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis).toISOString().slice(0, 10))

export class AgentRepo extends Effect.Service<AgentRepo>()("AgentRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(AGENT_COLUMNS)
    const first = (rows: ReadonlyArray<AgentRow>) => (rows.length === 0 ? undefined : toStoredAgent(rows[0]))
    const tenantFilter = (readTenant: string | null) => (readTenant === null ? sql`` : sql`AND tenant_id = ${readTenant}`)

    const insert = (input: NewAgent) =>
      Effect.gen(function* () {
        const today = yield* utcToday
        const rows = yield* sql`
          INSERT INTO agents (id, tenant_id, name, wallet_id, status, execution_mode, allowed_intents, allowed_protocols,
            budget_lamports, spent_day, autonomy, idempotency_key, idempotency_request)
          VALUES (${input.id}, ${input.tenantId}, ${input.name}, ${input.walletId}, 'stopped', ${input.executionMode},
            ${JSON.stringify(input.allowedIntents)}::jsonb,
            ${input.allowedProtocols === undefined ? null : JSON.stringify(input.allowedProtocols)}::jsonb,
            ${input.budgetLamports === undefined ? null : input.budgetLamports.toString()}::numeric,
            ${today}, ${JSON.stringify(encodeAutonomy(input.autonomy))}::jsonb, ${input.idempotency?.key ?? null}, ${input.idempotency?.request ?? null})
          ON CONFLICT (tenant_id, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
          RETURNING ${columns}
        `.pipe(decodeRows("agents", AgentRow))
        // undefined: the tenant's idempotency key is taken (its agent is byIdempotencyKey's)
        return first(rows)
      }).pipe(Effect.orDie, Effect.withSpan("AgentRepo.insert"))

    /** The tenant's agent created with `key` (as it stands now), and the request that created it. */
    const byIdempotencyKey = (tenantId: string, key: string) =>
      sql`SELECT ${columns}, idempotency_request FROM agents WHERE tenant_id = ${tenantId} AND idempotency_key = ${key}`.pipe(
        decodeRows("agents", KeyedAgentRow),
        Effect.map((rows) => (rows[0] === undefined ? undefined : { stored: toStoredAgent(rows[0]), request: rows[0].idempotency_request ?? "" })),
        Effect.orDie
      )

    const find = (id: string, readTenant: string | null) =>
      sql`SELECT ${columns} FROM agents WHERE id = ${id} ${tenantFilter(readTenant)}`.pipe(
        decodeRows("agents", AgentRow),
        Effect.map(first),
        Effect.orDie
      )

    // Oldest first, along agents_tenant_created (agents_created without a tenant).
    const listOrder = makeKeyset(sql, [
      { column: "created_at", descending: false, type: "timestamptz" },
      { column: "id", descending: false, type: "uuid" }
    ])

    /** A page of the tenant's agents (only `onlyId` for an agent's own key). */
    const list = (readTenant: string | null, page: PageRequest, onlyId: string | null) =>
      Effect.gen(function* () {
        const conditions = [...(readTenant === null ? [] : [sql`tenant_id = ${readTenant}`]), ...(onlyId === null ? [] : [sql`id = ${onlyId}`])]
        const where = yield* listOrder.where(conditions, page)
        const rows = yield* sql`
          SELECT ${columns}, ${listOrder.keyColumn} FROM agents WHERE ${where}
          ORDER BY ${listOrder.orderBy} LIMIT ${page.limit + 1} OFFSET ${page.offset}
        `.pipe(decodeRows("agents", AgentPageRow), Effect.orDie)
        const counted = yield* listOrder.cappedTotal(sql`agents`, conditions).pipe(Effect.orDie)
        const { items, info } = listOrder.pageOf(rows, page, counted)
        return { agents: items.map((row) => toStoredAgent(row).agent), ...info }
      })


    /**
     * The agents of many wallets in one statement: every create asks which agents act through its wallet,
     * and under load those questions share one statement (statementBatch.ts) instead of one round trip
     * each. Each input keeps its own tenant filter in SQL; the lateral subquery keeps each an index lookup.
     */
    const readByWallets = (inputs: ReadonlyArray<{ readonly walletId: string; readonly readTenant: string | null }>) =>
      sql`
        SELECT q.ord AS batch_ord, a.*
        FROM jsonb_to_recordset(${JSON.stringify(inputs.map((input, ord) => ({ ord, wallet_id: input.walletId, tenant: input.readTenant })))}::jsonb)
          AS q(ord int, wallet_id uuid, tenant text)
        CROSS JOIN LATERAL (
          SELECT ${columns} FROM agents WHERE wallet_id = q.wallet_id AND (q.tenant IS NULL OR tenant_id = q.tenant)
        ) a
        ORDER BY q.ord, a.created_at, a.id
      `.pipe(
        decodeRows("agents", AgentRowInBatch),
        Effect.map((rows) => {
          const byOrd = inputs.map((): Array<StoredAgent> => [])
          for (const { batch_ord, ...row } of rows) byOrd[batch_ord]?.push(toStoredAgent(row))
          return byOrd
        }),
        Effect.orDie
      )
    const walletReads = makeStatementBatch(readByWallets, { maxBatch: 64, repeatable: true })

    /** The agents acting through a wallet (usually one), oldest first; shares its statement with concurrent calls. */
    const listByWallet = (walletId: string, readTenant: string | null) => walletReads.submit({ walletId, readTenant })

    const updateCapabilities = (id: string, readTenant: string | null, change: CapabilitiesChange) =>
      sql`
        UPDATE agents SET
          allowed_intents = ${JSON.stringify(change.allowedIntents)}::jsonb,
          allowed_protocols = ${change.allowedProtocols === undefined ? sql`allowed_protocols` : sql`${JSON.stringify(change.allowedProtocols)}::jsonb`},
          execution_mode = ${change.executionMode ?? sql`execution_mode`},
          autonomy = ${change.autonomy === undefined ? sql`autonomy` : sql`${JSON.stringify(encodeAutonomy(change.autonomy))}::jsonb`},
          budget_lamports = ${change.budgetLamports === undefined ? sql`budget_lamports` : sql`${change.budgetLamports.toString()}::numeric`},
          budget_updated_at = ${change.budgetLamports === undefined ? sql`budget_updated_at` : sql`now()`},
          updated_at = now()
        WHERE id = ${id} ${tenantFilter(readTenant)}
        RETURNING ${columns}
      `.pipe(decodeRows("agents", AgentRow), Effect.map(first), Effect.orDie, Effect.withSpan("AgentRepo.updateCapabilities"))

    /**
     * Moves the agent to `to` only if its status is one of `from`; undefined when it was not (the caller
     * re-reads to name the current state). `pausedReason` is kept only while paused.
     */
    const transition = (
      id: string,
      readTenant: string | null,
      from: ReadonlyArray<AgentStatus>,
      to: AgentStatus,
      pausedReason: string | null = null
    ) =>
      sql`
        UPDATE agents SET status = ${to}, paused_reason = ${to === "paused" ? pausedReason : null}, updated_at = now()
        WHERE id = ${id} ${tenantFilter(readTenant)} AND status IN ${sql.in(from)}
        RETURNING ${columns}
      `.pipe(decodeRows("agents", AgentRow), Effect.map(first), Effect.orDie, Effect.withSpan("AgentRepo.transition"))

    /** Scheduler: agents in a status, every tenant. */
    const listByStatusSystem = (status: AgentStatus) =>
      sql`SELECT ${columns} FROM agents WHERE status = ${status} ORDER BY created_at, id`.pipe(
        decodeRows("agents", AgentRow),
        Effect.map((rows) => rows.map(toStoredAgent)),
        Effect.orDie
      )

    // Agent actors re-read their agent at every wake (thousands a second at scale): those reads share statements.
    const systemReads = makeStatementBatch(
      (ids: ReadonlyArray<string>) =>
        sql`
          SELECT ${columns} FROM agents WHERE id IN (SELECT q.element::uuid FROM jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb) AS q(element))
        `.pipe(
          decodeRows("agents", AgentRow),
          Effect.map((rows) => {
            const byId = new Map(rows.map((row) => [String(row.id), row] as const))
            return ids.map((id) => {
              const row = byId.get(id)
              return row === undefined ? undefined : toStoredAgent(row)
            })
          }),
          Effect.orDie
        ),
      { maxBatch: 256, repeatable: true }
    )

    /** A freeze's reach: the running agents of one tenant (unbounded on purpose: every one of them pauses). */
    const runningOfTenant = (tenantId: string) =>
      sql`SELECT ${columns} FROM agents WHERE tenant_id = ${tenantId} AND status = 'running' ORDER BY created_at, id`.pipe(
        decodeRows("agents", AgentRow),
        Effect.map((rows) => rows.map((row) => toStoredAgent(row).agent)),
        Effect.orDie
      )

    /** The scheduler's loop: the ids of the running agents with autonomy enabled (ids only: 10,000 of them every loop). */
    const runningAutonomousIds = sql`
      SELECT id::text AS id FROM agents WHERE status = 'running' AND (autonomy->>'enabled')::boolean ORDER BY id
    `.pipe(decodeRows("agents", AgentIdRow), Effect.map((rows) => rows.map((row) => row.id)), Effect.orDie)

    /** Scheduler and supervisor: one agent by id, any tenant (read in a statement shared with concurrent reads). */
    const findSystem = (id: string) => systemReads.submit(id)

    return { insert, byIdempotencyKey, find, list, listByWallet, updateCapabilities, transition, listByStatusSystem, runningOfTenant, runningAutonomousIds, findSystem }
  })
}) {}

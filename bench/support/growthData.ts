/**
 * The generator of `npm run bench:growth`: months of history in a database, written by SQL
 * (generate_series), shaped like the service's own rows. Each generated transaction is a copy of a real
 * confirmed transfer (request, policy decision, simulation, history, proof, signed bytes) with its own id,
 * wallet, signature and time, and a finished outbox job; each generated audit event a copy of one of that
 * transfer's real events, pointed at a generated transaction. Ids are md5-derived uuids, so events find
 * their transactions without a lookup. Times spread over the 90 days before the run, oldest first (as
 * `seq` and time go together in a real log). One wallet in ten transactions is the "heavy" wallet.
 */
import type pg from "pg"

export interface GrowthPlan {
  readonly transactions: number
  readonly auditEvents: number
  readonly wallets: number
  /** Rows per statement (each statement is its own transaction). */
  readonly chunk: number
}

const walletId = (k: string) => `md5('growth-wallet-' || (${k})::text)::uuid`
const txId = (n: string) => `md5('growth-tx-' || (${n})::text)::uuid`

/** The heavy wallet's id: wallet 0. */
export const HEAVY_WALLET_SQL = walletId("0")

type Query = (text: string, values?: Array<unknown>) => Promise<pg.QueryResult>

const columnsOf = async (query: Query, table: string) =>
  (await query(`SELECT column_name FROM information_schema.columns WHERE table_name = $1 AND table_schema = 'public' ORDER BY ordinal_position`, [table])).rows.map(
    (row: { column_name: string }) => row.column_name
  )

/** Copies `template`'s row into the generated rows: the listed columns get expressions, the rest the template's value. */
const selectList = (columns: ReadonlyArray<string>, overrides: Record<string, string>, template: string) =>
  columns.map((column) => (column in overrides ? `${overrides[column]} AS ${column}` : `${template}.${column}`)).join(", ")

export const generateGrowth = async (
  query: Query,
  plan: GrowthPlan,
  template: { readonly txId: string; readonly tenantId: string },
  progress: (line: string) => void
) => {
  const span = "interval '90 days'"
  const at = (n: string, total: number) => `now() - ${span} + ${span} * (${n})::float8 / ${total}`

  await query(`
    INSERT INTO wallets (id, tenant_id, public_key, provider, key_backend, status, label, created_at)
    SELECT ${walletId("k")}, $1, 'growth' || k || substr(md5(k::text), 1, 24), 'local-dev', 'encrypted-file', 'active', 'growth ' || k, now() - ${span}
    FROM generate_series(0, ${plan.wallets - 1}) AS k`, [template.tenantId])
  progress(`${plan.wallets} wallets`)

  const txColumns = (await columnsOf(query, "transactions")).filter((c) => c !== "history_pruned_at")
  const txOverrides: Record<string, string> = {
    id: txId("n"),
    // One in ten to the heavy wallet, the rest spread evenly.
    wallet_id: `CASE WHEN n % 10 = 0 THEN ${walletId("0")} ELSE ${walletId(`1 + n % ${plan.wallets - 1}`)} END`,
    idempotency_key: "NULL",
    signature: `'growth' || n || substr(md5(n::text), 1, 40)`,
    execution_proof: `t.execution_proof || jsonb_build_object('txId', ${txId("n")})`,
    created_at: at("n", plan.transactions),
    updated_at: at("n", plan.transactions),
    confirmed_at: at("n", plan.transactions)
  }
  const jobColumns = await columnsOf(query, "outbox_jobs")
  const jobOverrides: Record<string, string> = {
    id: `md5('growth-job-' || n::text)::uuid`,
    tx_id: txId("n"),
    action: "'execute'",
    status: "'done'",
    attempts: "1",
    lease_id: "NULL",
    lease_expires_at: "NULL",
    available_at: at("n", plan.transactions),
    last_error: "NULL",
    created_at: at("n", plan.transactions),
    updated_at: at("n", plan.transactions)
  }
  for (let from = 1; from <= plan.transactions; from += plan.chunk) {
    const to = Math.min(plan.transactions, from + plan.chunk - 1)
    await query(`
      WITH tx AS (
        INSERT INTO transactions (${txColumns.join(", ")})
        SELECT ${selectList(txColumns, txOverrides, "t")}
        FROM generate_series(${from}, ${to}) AS n CROSS JOIN (SELECT * FROM transactions WHERE id = $1) AS t
        RETURNING 1
      )
      INSERT INTO outbox_jobs (${jobColumns.join(", ")})
      SELECT ${jobColumns.map((c) => `${jobOverrides[c] ?? "NULL"} AS ${c}`).join(", ")} FROM generate_series(${from}, ${to}) AS n`, [template.txId])
    progress(`transactions ${to} / ${plan.transactions}`)
  }

  // The template's events (its stages, the wallet's creation...), cycled.
  const { rows: events } = await query(`SELECT count(*)::int AS k FROM audit_events WHERE tx_id = $1`, [template.txId])
  const kinds = (events[0] as { k: number }).k
  if (kinds === 0) throw new Error("the template transaction has no audit events")
  const perTx = Math.max(1, Math.round(plan.auditEvents / plan.transactions))
  const auditColumns = (await columnsOf(query, "audit_events")).filter((c) => c !== "seq")
  const auditOverrides: Record<string, string> = {
    id: "gen_random_uuid()",
    tx_id: txId(`1 + (m - 1) / ${perTx}`),
    wallet_id: `CASE WHEN ((m - 1) / ${perTx} + 1) % 10 = 0 THEN ${walletId("0")} ELSE ${walletId(`1 + ((m - 1) / ${perTx} + 1) % ${plan.wallets - 1}`)} END`,
    created_at: at(`(m - 1) / ${perTx} + 1`, plan.transactions)
  }
  for (let from = 1; from <= plan.auditEvents; from += plan.chunk * 10) {
    const to = Math.min(plan.auditEvents, from + plan.chunk * 10 - 1)
    await query(`
      INSERT INTO audit_events (${auditColumns.join(", ")})
      SELECT ${selectList(auditColumns, auditOverrides, "e")}
      FROM generate_series(${from}, ${to}) AS m
      JOIN (SELECT *, row_number() OVER (ORDER BY seq) - 1 AS kind FROM audit_events WHERE tx_id = $1) AS e ON e.kind = m % ${kinds}
      ORDER BY m`, [template.txId])
    progress(`audit events ${to} / ${plan.auditEvents}`)
  }
}

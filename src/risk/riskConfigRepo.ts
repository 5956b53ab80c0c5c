/**
 * Protocol risk configs (per tenant and protocol) and portfolio risk controls (per wallet) in SQL.
 * A PUT is one upsert statement: the stored JSON merged with the provided fields, `null` clearing an
 * optional bound (jsonb_strip_nulls), so two concurrent partial updates never lose each other's fields.
 * Reads decode with the resource schema; a stored row that does not decode fails (the engine denies).
 */
import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { makeKeyset, type PageRequest } from "../db/keysetPage.js"
import {
  PortfolioRiskControls,
  PortfolioRiskControlsUpdate,
  ProtocolRiskConfig,
  ProtocolRiskConfigUpdate
} from "../../schemas/policy.js"

interface ConfigRow {
  readonly key: string
  readonly tenant_id: string
  readonly body: string
  readonly updated_at: Date | string
}

/** A stored config or controls row that does not decode (someone edited SQL by hand). */
export class CorruptRiskConfig extends Schema.TaggedError<CorruptRiskConfig>()("CorruptRiskConfig", {
  message: Schema.String
}) {}

const PROTOCOL_DEFAULTS = { version: "1", allowedPools: [], allowedPrograms: [], requireOracleForSwap: false, gaslessEligible: false }
const PORTFOLIO_DEFAULTS = { autoPauseOnBreach: true }

const decodeProtocol = Schema.decodeUnknown(ProtocolRiskConfig)
const decodePortfolio = Schema.decodeUnknown(PortfolioRiskControls)
const encodeProtocolUpdate = Schema.encodeSync(ProtocolRiskConfigUpdate)
const encodePortfolioUpdate = Schema.encodeSync(PortfolioRiskControlsUpdate)

const parse = (text: string): unknown => {
  try {
    return JSON.parse(text) as unknown
  } catch {
    return null
  }
}

const iso = (value: Date | string) => new Date(value).toISOString()

const toProtocolConfig = (row: ConfigRow) =>
  decodeProtocol({ ...(parse(row.body) as object), protocol: row.key, updatedAt: iso(row.updated_at) }).pipe(
    Effect.mapError(() => new CorruptRiskConfig({ message: `protocol risk config for ${row.key} is corrupt` }))
  )

const toPortfolioControls = (row: ConfigRow) =>
  decodePortfolio({ ...(parse(row.body) as object), walletId: row.key, updatedAt: iso(row.updated_at) }).pipe(
    Effect.mapError(() => new CorruptRiskConfig({ message: `portfolio risk controls of wallet ${row.key} are corrupt` }))
  )

/** The config a protocol has before anyone set one: no bounds, nothing gasless (what the engine applies). */
export const defaultProtocolConfig = (protocol: string): ProtocolRiskConfig => ({
  protocol,
  ...PROTOCOL_DEFAULTS,
  updatedAt: new Date(0).toISOString()
})

/** The controls a wallet has before anyone set them: no limits, autoPauseOnBreach true (spec default). */
export const defaultPortfolioControls = (walletId: string): PortfolioRiskControls => ({
  walletId,
  autoPauseOnBreach: true,
  updatedAt: new Date(0).toISOString()
})

export class RiskConfigRepo extends Effect.Service<RiskConfigRepo>()("RiskConfigRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const tenantFilter = (readTenant: string | null) => (readTenant === null ? sql`` : sql`AND tenant_id = ${readTenant}`)

    // ---- protocol risk configs ----

    const protocolRows = (readTenant: string | null, protocol: string | null) =>
      sql<ConfigRow>`
        SELECT protocol AS key, tenant_id, config::text AS body, updated_at FROM protocol_risk_configs
        WHERE true ${tenantFilter(readTenant)} ${protocol === null ? sql`` : sql`AND protocol = ${protocol}`}
        ORDER BY protocol, tenant_id
      `

    /** The tenant's config for a protocol, or undefined. Fails on SQL errors and corrupt rows. */
    const findProtocol = (tenantId: string, protocol: string) =>
      protocolRows(tenantId, protocol).pipe(
        Effect.flatMap((rows) => (rows.length === 0 ? Effect.succeed(undefined) : toProtocolConfig(rows[0])))
      )

    const listProtocols = (readTenant: string | null) =>
      protocolRows(readTenant, null).pipe(Effect.orDie, Effect.flatMap((rows) => Effect.forEach(rows, toProtocolConfig)))

    const putProtocol = (tenantId: string, protocol: string, update: ProtocolRiskConfigUpdate) =>
      Effect.gen(function* () {
        const patch = JSON.stringify(encodeProtocolUpdate(update))
        const [row] = yield* sql<ConfigRow>`
          INSERT INTO protocol_risk_configs (tenant_id, protocol, config)
          VALUES (${tenantId}, ${protocol}, jsonb_strip_nulls(${JSON.stringify(PROTOCOL_DEFAULTS)}::jsonb || ${patch}::jsonb))
          ON CONFLICT (tenant_id, protocol) DO UPDATE
            SET config = jsonb_strip_nulls(protocol_risk_configs.config || ${patch}::jsonb), updated_at = now()
          RETURNING protocol AS key, tenant_id, config::text AS body, updated_at
        `
        return yield* toProtocolConfig(row)
      }).pipe(Effect.orDie, Effect.withSpan("RiskConfigRepo.putProtocol"))

    // ---- portfolio risk controls ----

    const portfolioRows = (readTenant: string | null, walletId: string | null) =>
      sql<ConfigRow>`
        SELECT wallet_id::text AS key, tenant_id, controls::text AS body, updated_at FROM portfolio_risk_controls
        WHERE true ${tenantFilter(readTenant)} ${walletId === null ? sql`` : sql`AND wallet_id = ${walletId}`}
        ORDER BY wallet_id
      `

    /** The wallet's controls (defaults when never set). Fails on SQL errors and corrupt rows. */
    const findPortfolio = (walletId: string, tenantId: string) =>
      portfolioRows(tenantId, walletId).pipe(
        Effect.flatMap((rows) => (rows.length === 0 ? Effect.succeed(defaultPortfolioControls(walletId)) : toPortfolioControls(rows[0])))
      )

    const portfolioOrder = makeKeyset(sql, [{ column: "wallet_id", descending: false, type: "uuid" }])

    /** A page of the tenant's controls, by wallet id. */
    const listPortfolio = (readTenant: string | null, page: PageRequest) =>
      Effect.gen(function* () {
        const conditions = readTenant === null ? [] : [sql`tenant_id = ${readTenant}`]
        const where = yield* portfolioOrder.where(conditions, page)
        const rows = yield* sql<ConfigRow & { page_key: unknown }>`
          SELECT wallet_id::text AS key, tenant_id, controls::text AS body, updated_at, ${portfolioOrder.keyColumn}
          FROM portfolio_risk_controls WHERE ${where}
          ORDER BY ${portfolioOrder.orderBy} LIMIT ${page.limit + 1} OFFSET ${page.offset}
        `.pipe(Effect.orDie)
        const counted = yield* portfolioOrder.cappedTotal(sql`portfolio_risk_controls`, conditions).pipe(Effect.orDie)
        const { items, info } = portfolioOrder.pageOf(rows, page, counted)
        return { controls: yield* Effect.forEach(items, toPortfolioControls).pipe(Effect.orDie), ...info }
      })

    const putPortfolio = (tenantId: string, walletId: string, update: PortfolioRiskControlsUpdate) =>
      Effect.gen(function* () {
        const patch = JSON.stringify(encodePortfolioUpdate(update))
        const [row] = yield* sql<ConfigRow>`
          INSERT INTO portfolio_risk_controls (wallet_id, tenant_id, controls)
          VALUES (${walletId}, ${tenantId}, jsonb_strip_nulls(${JSON.stringify(PORTFOLIO_DEFAULTS)}::jsonb || ${patch}::jsonb))
          ON CONFLICT (wallet_id) DO UPDATE
            SET controls = jsonb_strip_nulls(portfolio_risk_controls.controls || ${patch}::jsonb), updated_at = now()
          RETURNING wallet_id::text AS key, tenant_id, controls::text AS body, updated_at
        `
        return yield* toPortfolioControls(row)
      }).pipe(Effect.orDie, Effect.withSpan("RiskConfigRepo.putPortfolio"))

    return { findProtocol, listProtocols, putProtocol, findPortfolio, listPortfolio, putPortfolio }
  })
}) {}

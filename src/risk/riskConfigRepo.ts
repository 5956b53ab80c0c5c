/**
 * Protocol risk configs (per tenant and protocol) and portfolio risk controls (per wallet) in SQL.
 * A PUT is one upsert statement: the stored JSON merged with the provided fields, `null` clearing an
 * optional bound (jsonb_strip_nulls), so two concurrent partial updates never lose each other's fields.
 * Reads decode with the resource schema; a stored row that does not decode fails (the engine denies).
 */
import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { ValidationError } from "../../schemas/errors.js"
import { makeKeyset, type PageRequest, withPageKey } from "../db/keysetPage.js"
import { decodeRows, Timestamp } from "../db/rowDecoding.js"
import { type DeploymentLayer, deploymentConfig, layeredConfig, looserThanDeployment } from "./protocolLayers.js"
import {
  PortfolioRiskControls,
  PortfolioRiskControlsUpdate,
  ProtocolRiskConfig,
  ProtocolRiskConfigUpdate
} from "../../schemas/policy.js"

/** A protocol's config or a wallet's controls: the stored JSON as text (a corrupt body is CorruptRiskConfig, not a defect). */
const ConfigRow = Schema.Struct({ key: Schema.String, tenant_id: Schema.String, body: Schema.String, updated_at: Timestamp })
type ConfigRow = typeof ConfigRow.Type

const ConfigPageRow = withPageKey(ConfigRow)

/** A stored config or controls row that does not decode (someone edited SQL by hand). */
export class CorruptRiskConfig extends Schema.TaggedError<CorruptRiskConfig>()("CorruptRiskConfig", {
  message: Schema.String
}) {}

const PROTOCOL_DEFAULTS = { version: "1", allowedPools: [], allowedPrograms: [], requireOracleForSwap: false, gaslessEligible: false }
/**
 * What a tenant's first write starts from: the defaults but `gaslessEligible`, which a tenant's row holds only when
 * the tenant set it (else the deployment's layer decides; protocolLayers.ts).
 */
const { gaslessEligible: _unsetGasless, ...TENANT_INITIAL } = PROTOCOL_DEFAULTS
const PORTFOLIO_DEFAULTS = { autoPauseOnBreach: true }

/** The tenant id of the deployment-wide layer (issue 34 item 4): written by a key that reads every tenant. */
export const DEPLOYMENT_TENANT = "*"

const decodeProtocol = Schema.decodeUnknown(ProtocolRiskConfig)
const decodeDeploymentLayer = Schema.decodeUnknown(ProtocolRiskConfigUpdate)
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

const toProtocolConfig = (row: ConfigRow, body: unknown = parse(row.body)) =>
  decodeProtocol({ gaslessEligible: false, ...(body as object), protocol: row.key, updatedAt: row.updated_at.toISOString() }).pipe(
    Effect.mapError(() => new CorruptRiskConfig({ message: `protocol risk config for ${row.key} is corrupt` }))
  )

const toDeploymentLayer = (row: ConfigRow) =>
  decodeDeploymentLayer(parse(row.body)).pipe(
    Effect.map((layer): { layer: DeploymentLayer; updatedAt: string } => ({ layer, updatedAt: row.updated_at.toISOString() })),
    Effect.mapError(() => new CorruptRiskConfig({ message: `deployment-wide protocol risk config for ${row.key} is corrupt` }))
  )

const toPortfolioControls = (row: ConfigRow) =>
  decodePortfolio({ ...(parse(row.body) as object), walletId: row.key, updatedAt: row.updated_at.toISOString() }).pipe(
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
      sql`
        SELECT protocol AS key, tenant_id, config::text AS body, updated_at FROM protocol_risk_configs
        WHERE true ${tenantFilter(readTenant)} ${protocol === null ? sql`` : sql`AND protocol = ${protocol}`}
        ORDER BY protocol, tenant_id
      `.pipe(decodeRows("protocol_risk_configs", ConfigRow))

    /** The stored rows of a tenant and of the deployment-wide layer for a protocol (null: every protocol). */
    const layerRows = (tenantId: string, protocol: string | null) =>
      sql`
        SELECT protocol AS key, tenant_id, config::text AS body, updated_at FROM protocol_risk_configs
        WHERE tenant_id IN (${tenantId}, ${DEPLOYMENT_TENANT}) ${protocol === null ? sql`` : sql`AND protocol = ${protocol}`}
        ORDER BY protocol, tenant_id
      `.pipe(decodeRows("protocol_risk_configs", ConfigRow))

    /** One protocol's effective config from its rows: the deployment's layer itself for tenant `*`. */
    const effective = (tenantId: string, protocol: string, rows: ReadonlyArray<ConfigRow>) =>
      Effect.gen(function* () {
        const deploymentRow = rows.find((row) => row.tenant_id === DEPLOYMENT_TENANT && row.key === protocol)
        const deployment = deploymentRow === undefined ? undefined : yield* toDeploymentLayer(deploymentRow)
        if (tenantId === DEPLOYMENT_TENANT) {
          return deployment === undefined ? undefined : deploymentConfig(defaultProtocolConfig(protocol), deployment.layer, deployment.updatedAt)
        }
        const tenantRow = rows.find((row) => row.tenant_id === tenantId && row.key === protocol)
        if (tenantRow === undefined && deployment === undefined) return undefined
        if (tenantRow === undefined) return layeredConfig(defaultProtocolConfig(protocol), false, deployment?.layer, false)
        const body = parse(tenantRow.body)
        const setsGasless = typeof (body as { gaslessEligible?: unknown } | null)?.gaslessEligible === "boolean"
        return layeredConfig(yield* toProtocolConfig(tenantRow, body), true, deployment?.layer, setsGasless)
      })

    /**
     * The tenant's effective config for a protocol (its own over the deployment-wide layer; for tenant `*`
     * the deployment's layer), or undefined when neither is set. Fails on SQL errors and corrupt rows.
     */
    const findProtocol = (tenantId: string, protocol: string) =>
      layerRows(tenantId, protocol).pipe(Effect.flatMap((rows) => effective(tenantId, protocol, rows)))

    /** Every config the caller's tenant has in effect; a key reading every tenant sees each stored row (the deployment's as its layer). */
    const listProtocols = (readTenant: string | null) =>
      Effect.gen(function* () {
        if (readTenant === null) {
          const rows = yield* protocolRows(null, null)
          const configs = yield* Effect.forEach(rows, (row) =>
            row.tenant_id === DEPLOYMENT_TENANT ? effective(DEPLOYMENT_TENANT, row.key, [row]) : toProtocolConfig(row)
          )
          return configs.filter((config) => config !== undefined)
        }
        const rows = yield* layerRows(readTenant, null)
        const protocols = [...new Set(rows.map((row) => row.key))]
        const configs = yield* Effect.forEach(protocols, (protocol) => effective(readTenant, protocol, rows))
        return configs.filter((config) => config !== undefined)
      }).pipe(Effect.catchTag("SqlError", Effect.die))

    /**
     * A PUT: the deployment-wide layer keeps only the fields its operator sets; a tenant's write that would
     * be looser than the deployment's is refused (400 naming the field, nothing written). Answers the
     * effective config after the write.
     */
    const putProtocol = (tenantId: string, protocol: string, update: ProtocolRiskConfigUpdate) =>
      Effect.gen(function* () {
        const patch = JSON.stringify(encodeProtocolUpdate(update))
        if (tenantId !== DEPLOYMENT_TENANT) {
          const rows = yield* layerRows(tenantId, protocol).pipe(Effect.orDie)
          const deploymentRow = rows.find((row) => row.tenant_id === DEPLOYMENT_TENANT)
          const deployment = deploymentRow === undefined ? undefined : yield* Effect.orDie(toDeploymentLayer(deploymentRow))
          const looser = looserThanDeployment(update, deployment?.layer)
          if (looser !== undefined) return yield* Effect.fail(new ValidationError({ message: looser.message, field: looser.field }))
        }
        const initial = tenantId === DEPLOYMENT_TENANT ? {} : TENANT_INITIAL
        yield* sql`
          INSERT INTO protocol_risk_configs (tenant_id, protocol, config)
          VALUES (${tenantId}, ${protocol}, jsonb_strip_nulls(${JSON.stringify(initial)}::jsonb || ${patch}::jsonb))
          ON CONFLICT (tenant_id, protocol) DO UPDATE
            SET config = jsonb_strip_nulls(protocol_risk_configs.config || ${patch}::jsonb), updated_at = now()
        `.pipe(Effect.orDie)
        const written = yield* Effect.orDie(findProtocol(tenantId, protocol).pipe(Effect.catchTag("SqlError", Effect.die)))
        return written ?? defaultProtocolConfig(protocol)
      }).pipe(Effect.withSpan("RiskConfigRepo.putProtocol"))

    // ---- portfolio risk controls ----

    const portfolioRows = (readTenant: string | null, walletId: string | null) =>
      sql`
        SELECT wallet_id::text AS key, tenant_id, controls::text AS body, updated_at FROM portfolio_risk_controls
        WHERE true ${tenantFilter(readTenant)} ${walletId === null ? sql`` : sql`AND wallet_id = ${walletId}`}
        ORDER BY wallet_id
      `.pipe(decodeRows("portfolio_risk_controls", ConfigRow))

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
        const rows = yield* sql`
          SELECT wallet_id::text AS key, tenant_id, controls::text AS body, updated_at, ${portfolioOrder.keyColumn}
          FROM portfolio_risk_controls WHERE ${where}
          ORDER BY ${portfolioOrder.orderBy} LIMIT ${page.limit + 1} OFFSET ${page.offset}
        `.pipe(decodeRows("portfolio_risk_controls", ConfigPageRow), Effect.orDie)
        const counted = yield* portfolioOrder.cappedTotal(sql`portfolio_risk_controls`, conditions).pipe(Effect.orDie)
        const { items, info } = portfolioOrder.pageOf(rows, page, counted)
        return { controls: yield* Effect.forEach(items, toPortfolioControls).pipe(Effect.orDie), ...info }
      })

    const putPortfolio = (tenantId: string, walletId: string, update: PortfolioRiskControlsUpdate) =>
      Effect.gen(function* () {
        const patch = JSON.stringify(encodePortfolioUpdate(update))
        const [row] = yield* sql`
          INSERT INTO portfolio_risk_controls (wallet_id, tenant_id, controls)
          VALUES (${walletId}, ${tenantId}, jsonb_strip_nulls(${JSON.stringify(PORTFOLIO_DEFAULTS)}::jsonb || ${patch}::jsonb))
          ON CONFLICT (wallet_id) DO UPDATE
            SET controls = jsonb_strip_nulls(portfolio_risk_controls.controls || ${patch}::jsonb), updated_at = now()
          RETURNING wallet_id::text AS key, tenant_id, controls::text AS body, updated_at
        `.pipe(decodeRows("portfolio_risk_controls", ConfigRow))
        return yield* toPortfolioControls(row)
      }).pipe(Effect.orDie, Effect.withSpan("RiskConfigRepo.putPortfolio"))

    return { findProtocol, listProtocols, putProtocol, findPortfolio, listPortfolio, putPortfolio }
  })
}) {}

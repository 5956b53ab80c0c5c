/**
 * The whole service as one layer: database, components, actors and the gateway. It needs only
 * AppConfig and the ledger endpoints, so main.ts and the tests compose it the same way.
 */
import { Layer } from "effect"
import { AuditLog } from "./audit/auditLog.js"
import { ChainClient } from "./chain/chainClient.js"
import { DatabaseLive } from "./db/database.js"
import { healthRoutes } from "./gateway/health.js"
import { gatewayServerLayer } from "./gateway/server.js"
import { AutoFunder } from "./wallet/autoFund.js"
import { walletRoutes } from "./wallet/http.js"
import { KeyStore } from "./wallet/keyStore.js"
import { WalletRepo } from "./wallet/walletRepo.js"
import { WalletService } from "./wallet/walletService.js"

export const routes = [...healthRoutes, ...walletRoutes]

const ServicesLive = WalletService.Default.pipe(
  Layer.provideMerge(Layer.mergeAll(WalletRepo.Default, KeyStore.Default, AutoFunder.Default, AuditLog.Default)),
  Layer.provideMerge(ChainClient.Default)
)

export const AppLive = gatewayServerLayer(routes).pipe(
  Layer.provide(ServicesLive),
  Layer.provideMerge(DatabaseLive)
)

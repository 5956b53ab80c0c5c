/** Deployment operations (spec: Health and operations): the chaos config. */
import { ChaosConfig, ChaosUpdateBody } from "../chain.js"
import { endpoint } from "./endpoint.js"

export const ChaosApi = {
  get: endpoint("operations", "GET", "/api/v1/chaos", { summary: "The deployment's chaos config", success: ChaosConfig }),
  update: endpoint("operations", "PUT", "/api/v1/chaos", {
    summary: "Change the chaos config (given fields only; 403 where chaos is not allowed)",
    body: ChaosUpdateBody,
    success: ChaosConfig
  })
}

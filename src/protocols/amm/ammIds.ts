/** The two deployments of our constant-product AMM program (programs/amm) and their local-ledger ids. */
export const AMM_PROTOCOLS = ["amm-one", "amm-two"] as const
export type AmmProtocol = (typeof AMM_PROTOCOLS)[number]

export const isAmmProtocol = (value: string): value is AmmProtocol => (AMM_PROTOCOLS as ReadonlyArray<string>).includes(value)

/** Vanity placeholders (valid base58, 32 bytes) the local ledger deploys programs/dist/amm.so at. */
export const LOCAL_AMM_PROGRAM_IDS: Record<AmmProtocol, string> = {
  "amm-one": "Ammone1111111111111111111111111111111111111",
  "amm-two": "Ammtwo1111111111111111111111111111111111111"
}

/** The environment variable naming each deployment's program id. */
export const AMM_PROGRAM_ID_SETTINGS: Record<AmmProtocol, string> = {
  "amm-one": "AMM_ONE_PROGRAM_ID",
  "amm-two": "AMM_TWO_PROGRAM_ID"
}

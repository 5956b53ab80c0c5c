/**
 * The local relay's port: GASLESS_RELAY_PORT, else two above LEDGER_PORT (the ledger takes its port and
 * the next for WebSocket). Apart from the relay, so start-up reads it before loading the service.
 */
export const localRelayPort = (env: Readonly<Record<string, string | undefined>>): number => {
  const configured = Number((env.GASLESS_RELAY_PORT ?? "").trim())
  if (Number.isInteger(configured) && configured > 0) return configured
  const ledger = Number((env.LEDGER_PORT ?? "").trim())
  return (Number.isInteger(ledger) && ledger > 0 ? ledger : 8899) + 2
}

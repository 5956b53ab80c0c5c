/** Wallets with their SOL balance and token balances. */
import { Gate, Section, ShortId, time } from "../components"
import type { Wallet } from "../types"
import { useApi } from "../useApi"
import { FreezeControl, freezeOf, FrozenBadge, useFreezes } from "../freeze"

interface TokenBalance {
  readonly mint: string
  readonly amount: string
  readonly decimals: number
  readonly uiAmount: number
}

const WalletRow = ({ wallet }: { wallet: Wallet }) => {
  const balance = useApi<{ lamports: number; sol: number }>(`/api/v1/wallets/${wallet.id}/balance`)
  const tokens = useApi<{ tokens: ReadonlyArray<TokenBalance> }>(`/api/v1/wallets/${wallet.id}/tokens`)
  const frozen = freezeOf(useFreezes().list, "wallet", wallet.id)
  return (
    <tr data-wallet={wallet.id}>
      <td>{wallet.label ?? "-"}</td>
      <td>
        <ShortId id={wallet.id} />
      </td>
      <td>
        <code>{wallet.publicKey}</code>
      </td>
      <td>
        {wallet.provider} · {wallet.status} <FrozenBadge freeze={frozen} />
      </td>
      <td class="number" data-testid="balance">
        {balance.error !== undefined ? <span class="error">{balance.error.message}</span> : balance.data === undefined ? "…" : `${balance.data.sol} SOL`}
      </td>
      <td>
        {tokens.error !== undefined ? (
          <span class="error">{tokens.error.message}</span>
        ) : (tokens.data?.tokens ?? []).length === 0 ? (
          <span class="muted">none</span>
        ) : (
          (tokens.data?.tokens ?? []).map((token) => (
            <div key={token.mint}>
              {token.uiAmount} <code title={token.mint}>{token.mint.slice(0, 6)}</code>
            </div>
          ))
        )}
      </td>
      <td>{time(wallet.createdAt)}</td>
      <td>
        <FreezeControl scope="wallet" targetId={wallet.id} label="wallet" />
      </td>
    </tr>
  )
}

export const Wallets = () => {
  const wallets = useApi<{ wallets: ReadonlyArray<Wallet>; total: number }>("/api/v1/wallets?limit=100")
  return (
    <Section title={`Wallets${wallets.data === undefined ? "" : ` (${wallets.data.total})`}`}>
      <Gate scope="wallets" error={wallets.error}>
        <table data-testid="wallets">
          <thead>
            <tr>
              <th>label</th>
              <th>id</th>
              <th>public key</th>
              <th>provider</th>
              <th>balance</th>
              <th>tokens</th>
              <th>created</th>
              <th>kill switch</th>
            </tr>
          </thead>
          <tbody>
            {(wallets.data?.wallets ?? []).map((wallet) => (
              <WalletRow key={wallet.id} wallet={wallet} />
            ))}
          </tbody>
        </table>
      </Gate>
    </Section>
  )
}

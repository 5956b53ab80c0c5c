/**
 * Amounts as a person reads them: SOL with 9 decimals, a token in its own units and symbol (the local mints'
 * symbols; otherwise the mint's address, shortened), and the accounts a preview names (the wallet, its token
 * accounts). Built from the accounts as they were before the transaction, so it is pure to use.
 */
import bs58 from "bs58"
import { symbolOf } from "../../protocols/amm/localPools.js"
import { NATIVE_MINT } from "@solana/spl-token"
import { TOKEN_2022_PROGRAM, TOKEN_PROGRAM } from "../../protocols/programIds.js"

export interface Asset {
  readonly symbol: string
  /** null: SOL itself */
  readonly mint: string | null
  /** null when the mint could not be read */
  readonly decimals: number | null
}

export interface AssetAmount {
  readonly symbol: string
  readonly mint: string | null
  readonly decimals: number | null
  /** exact, in the smallest unit (lamports, token base units), as a decimal string; negative for an outflow */
  readonly baseUnits: string
  /** in whole units (`0.001`), or the base units when the decimals are unknown */
  readonly amount: string
  readonly display: string
}

export const SOL: Asset = { symbol: "SOL", mint: null, decimals: 9 }

/** `1234500` with 6 decimals -> `1.2345` (exact; a minus sign kept). */
export const inUnits = (baseUnits: bigint, decimals: number): string => {
  const negative = baseUnits < 0n
  const digits = (negative ? -baseUnits : baseUnits).toString().padStart(decimals + 1, "0")
  const whole = digits.slice(0, digits.length - decimals)
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, "")
  return `${negative ? "-" : ""}${whole}${fraction === "" ? "" : `.${fraction}`}`
}

export const assetAmount = (asset: Asset, baseUnits: bigint): AssetAmount => {
  const amount = asset.decimals === null ? baseUnits.toString() : inUnits(baseUnits, asset.decimals)
  return {
    symbol: asset.symbol, mint: asset.mint, decimals: asset.decimals, baseUnits: baseUnits.toString(), amount,
    display: asset.decimals === null ? `${amount} base units of ${asset.symbol}` : `${amount} ${asset.symbol}`
  }
}

const short = (address: string) => `${address.slice(0, 4)}...${address.slice(-4)}`

export interface AccountBefore {
  readonly owner: string
  readonly data: Buffer
}

interface TokenAccount {
  readonly mint: string
  readonly owner: string
}

const TOKEN_PROGRAMS = new Set([TOKEN_PROGRAM, TOKEN_2022_PROGRAM])

/** A token account's mint and owner (SPL layout: mint, owner, amount at 64), or undefined. */
export const tokenAccountOf = (account: AccountBefore | null | undefined): TokenAccount | undefined =>
  account !== null && account !== undefined && TOKEN_PROGRAMS.has(account.owner) && account.data.length >= 72
    ? { mint: bs58.encode(account.data.subarray(0, 32)), owner: bs58.encode(account.data.subarray(32, 64)) }
    : undefined

/** A mint's decimals (SPL layout: decimals at 44), or undefined when `account` is not a mint. */
const mintDecimals = (account: AccountBefore | null | undefined): number | undefined =>
  account !== null && account !== undefined && TOKEN_PROGRAMS.has(account.owner) && account.data.length >= 45 && account.data.length < 165
    ? account.data[44]
    : undefined

export class AssetBook {
  private readonly tokenAccounts = new Map<string, TokenAccount>()
  private readonly decimals = new Map<string, number>()

  constructor(accounts: ReadonlyMap<string, AccountBefore | null>) {
    for (const [address, account] of accounts) {
      const tokenAccount = tokenAccountOf(account)
      if (tokenAccount !== undefined) this.tokenAccounts.set(address, tokenAccount)
      const decimals = mintDecimals(account)
      if (decimals !== undefined) this.decimals.set(address, decimals)
    }
  }

  /** Mints named by token accounts whose decimals are not known yet (the caller reads them). */
  missingMints(): ReadonlyArray<string> {
    return [...new Set([...this.tokenAccounts.values()].map((t) => t.mint))].filter((mint) => !this.decimals.has(mint))
  }

  addMint(mint: string, account: AccountBefore | null): void {
    const decimals = mintDecimals(account)
    if (decimals !== undefined) this.decimals.set(mint, decimals)
  }

  token(mint: string | undefined): Asset {
    if (mint === undefined) return { symbol: "an unknown token", mint: null, decimals: null }
    const symbol = mint === NATIVE_MINT.toBase58() ? "wrapped SOL" : (symbolOf(mint) ?? `token ${short(mint)}`)
    return { symbol, mint, decimals: this.decimals.get(mint) ?? null }
  }

  mintOfTokenAccount(address: string | undefined): string | undefined {
    return address === undefined ? undefined : this.tokenAccounts.get(address)?.mint
  }

  ownerOfTokenAccount(address: string | undefined): string | undefined {
    return address === undefined ? undefined : this.tokenAccounts.get(address)?.owner
  }

  isWalletTokenAccount(address: string, wallet: string): boolean {
    return this.tokenAccounts.get(address)?.owner === wallet
  }

  /** How a preview names an address: the wallet, one of its token accounts, or the address itself. */
  label(address: string, wallet: string): string {
    if (address === wallet) return "this wallet"
    const tokenAccount = this.tokenAccounts.get(address)
    if (tokenAccount?.owner === wallet) return `this wallet's ${this.token(tokenAccount.mint).symbol} account`
    return address
  }
}

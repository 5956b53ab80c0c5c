// RPC methods that read accounts: balances, account infos, program accounts, SPL token accounts.
import { address } from "@solana/kit"
import {
  asBytes,
  encodeAccount,
  matchesFilters,
  parseDataSlice,
  parseEncoding,
  parseProgramAccountFilters
} from "./accounts.js"
import { InvalidParamsError, optionalConfig, requireStringArray, type RpcHandler } from "./jsonRpc.js"
import type { Ledger } from "./ledger.js"
import { context, requirePubkey } from "./rpcParams.js"
import { decodeMint, decodeTokenAccount, isTokenProgram, uiTokenAmount } from "./tokenAccounts.js"

export function accountMethods(ledger: Ledger): Array<[string, RpcHandler]> {
  const read = (key: string) => ledger.readAccount(key)

  const encodeWith = (config: Record<string, unknown>, fallback: "base58" | "base64") => {
    const encoding = parseEncoding(config.encoding, fallback)
    const dataSlice = parseDataSlice(config.dataSlice)
    return (key: string) => {
      const account = read(key)
      return account === null ? null : encodeAccount(account, encoding, dataSlice, read)
    }
  }

  const tokenAmountOf = (key: string, want: "account" | "mint") => {
    const account = read(key)
    if (account === null) throw new InvalidParamsError("Invalid param: could not find account")
    if (!isTokenProgram(account.owner)) throw new InvalidParamsError(`Invalid param: not a Token ${want}`)
    if (want === "mint") {
      const mint = decodeMint(account.data)
      if (mint === null) throw new InvalidParamsError("Invalid param: not a Token mint")
      return uiTokenAmount(mint.supply, mint.decimals)
    }
    const token = decodeTokenAccount(account.data)
    const mintAccount = token === null ? null : read(token.mint)
    const mint = mintAccount === null ? null : decodeMint(mintAccount.data)
    if (token === null || mint === null) throw new InvalidParamsError("Invalid param: not a Token account")
    return uiTokenAmount(token.amount, mint.decimals)
  }

  return [
    ["getBalance", (params) => ({ context: context(ledger), value: ledger.balanceOf(requirePubkey(params, 0)) })],
    ["getAccountInfo", (params) => {
      const key = requirePubkey(params, 0)
      return { context: context(ledger), value: encodeWith(optionalConfig(params, 1), "base58")(key) }
    }],
    ["getMultipleAccounts", (params) => {
      const keys = requireStringArray(params, 0, "pubkeys", 100)
      keys.forEach((_, index) => requirePubkey(keys, index))
      const encode = encodeWith(optionalConfig(params, 1), "base64")
      return { context: context(ledger), value: keys.map(encode) }
    }],
    ["getProgramAccounts", (params) => {
      const programId = requirePubkey(params, 0)
      const config = optionalConfig(params, 1)
      const filters = parseProgramAccountFilters(config.filters)
      const encoding = parseEncoding(config.encoding, "base64")
      const dataSlice = parseDataSlice(config.dataSlice)
      const value = ledger.svm
        .getProgramAccounts(address(programId))
        .filter((account) => matchesFilters(asBytes(account.data), filters))
        .map((account) => ({
          account: encodeAccount(
            { lamports: account.lamports, owner: account.programAddress, executable: account.executable, data: asBytes(account.data) },
            encoding,
            dataSlice,
            read
          ),
          pubkey: account.address
        }))
      return config.withContext === true ? { context: context(ledger), value } : value
    }],
    ["getTokenAccountsByOwner", (params) => {
      const owner = requirePubkey(params, 0)
      const filter = params[1]
      if (typeof filter !== "object" || filter === null) {
        throw new InvalidParamsError("Invalid params: expected a filter object with `mint` or `programId`")
      }
      const { mint, programId } = filter as { mint?: unknown; programId?: unknown }
      let accept: (token: { mint: string }, programOwner: string) => boolean
      if (typeof mint === "string") {
        requirePubkey([mint], 0)
        accept = (token) => token.mint === mint
      } else if (typeof programId === "string") {
        requirePubkey([programId], 0)
        if (!isTokenProgram(programId)) throw new InvalidParamsError("Invalid param: unrecognized Token program id")
        accept = (_, programOwner) => programOwner === programId
      } else {
        throw new InvalidParamsError("Invalid params: expected a filter object with `mint` or `programId`")
      }
      const config = optionalConfig(params, 2)
      const encoding = parseEncoding(config.encoding, "base64")
      const dataSlice = parseDataSlice(config.dataSlice)
      const value = []
      for (const key of ledger.tokenOwners.accountsOf(owner)) {
        const account = read(key)
        const token = account === null ? null : decodeTokenAccount(account.data)
        if (account === null || token === null || !accept(token, account.owner)) continue
        value.push({ account: encodeAccount(account, encoding, dataSlice, read), pubkey: key })
      }
      return { context: context(ledger), value }
    }],
    ["getTokenAccountBalance", (params) => ({
      context: context(ledger),
      value: tokenAmountOf(requirePubkey(params, 0), "account")
    })],
    ["getTokenSupply", (params) => ({ context: context(ledger), value: tokenAmountOf(requirePubkey(params, 0), "mint") })],
    ["getMinimumBalanceForRentExemption", (params) => {
      const size = params[0]
      if (typeof size !== "number" || !Number.isSafeInteger(size) || size < 0 || size > 10 * 1024 * 1024) {
        throw new InvalidParamsError("Invalid params: data length must be an integer between 0 and 10485760")
      }
      return Number(ledger.svm.minimumBalanceForRentExemption(BigInt(size)))
    }]
  ]
}

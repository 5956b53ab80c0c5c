/** Test helper: the seeded pools of a local ledger read over JSON-RPC, and token balances of a wallet. */
import { getAssociatedTokenAddressSync } from "@solana/spl-token"
import { Connection, PublicKey } from "@solana/web3.js"
import { LOCAL_AMM_PROGRAM_IDS, type AmmProtocol } from "../../src/protocols/amm/ammIds.js"
import { decodePoolState, poolAddress } from "../../src/protocols/amm/layout.js"
import type { PoolView } from "../../src/protocols/amm/poolReads.js"

export const readPool = async (rpcUrl: string, protocol: AmmProtocol, x: PublicKey, y: PublicKey): Promise<PoolView> => {
  const connection = new Connection(rpcUrl, "confirmed")
  const programId = new PublicKey(LOCAL_AMM_PROGRAM_IDS[protocol])
  const address = poolAddress(programId, x, y)
  const info = await connection.getAccountInfo(address)
  const state = info === null ? null : decodePoolState(info.data)
  if (state === null) throw new Error(`no ${protocol} pool at ${address.toBase58()}`)
  const [vaultA, vaultB, mintA, mintB] = await connection.getMultipleAccountsInfo([state.vaultA, state.vaultB, state.mintA, state.mintB])
  return {
    protocol, programId: programId.toBase58(), address: address.toBase58(), feeBps: state.feeBps,
    mintA: { address: state.mintA.toBase58(), decimals: mintA!.data[44]!, symbol: null },
    mintB: { address: state.mintB.toBase58(), decimals: mintB!.data[44]!, symbol: null },
    vaultA: state.vaultA.toBase58(), vaultB: state.vaultB.toBase58(), lpMint: state.lpMint.toBase58(),
    reserveA: vaultA!.data.readBigUInt64LE(64), reserveB: vaultB!.data.readBigUInt64LE(64), lpSupply: 0n
  }
}

/** The wallet's balance in its associated token account of `mint` (0 when it has none). */
export const tokenBalance = async (rpcUrl: string, owner: string, mint: PublicKey): Promise<bigint> => {
  const info = await new Connection(rpcUrl, "confirmed").getAccountInfo(getAssociatedTokenAddressSync(mint, new PublicKey(owner)))
  return info === null ? 0n : info.data.readBigUInt64LE(64)
}

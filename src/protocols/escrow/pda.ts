// Escrow account address: the PDA of seeds ["escrow", creator (32 bytes), escrow id (u64 little-endian)].
import { PublicKey } from "@solana/web3.js"

export const ESCROW_SEED = "escrow"

export const escrowIdSeed = (escrowId: bigint): Buffer => {
  if (escrowId < 0n || escrowId > 0xffff_ffff_ffff_ffffn) throw new RangeError(`escrow id ${escrowId} is not a u64`)
  const seed = Buffer.alloc(8)
  seed.writeBigUInt64LE(escrowId)
  return seed
}

export const findEscrowAddress = (programId: PublicKey, creator: PublicKey, escrowId: bigint): { address: PublicKey; bump: number } => {
  const [address, bump] = PublicKey.findProgramAddressSync([Buffer.from(ESCROW_SEED), creator.toBuffer(), escrowIdSeed(escrowId)], programId)
  return { address, bump }
}

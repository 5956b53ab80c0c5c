import { TOKEN_2022_PROGRAM_ID } from "@solana/spl-token"
import { ASSOCIATED_TOKEN_PROGRAM, SYSTEM_PROGRAM_ID } from "../programIds.js"

/** The programs an nft_mint invokes: Token-2022 (mint and metadata), the ATA program and the System program. */
export const NFT_PROGRAM_IDS: ReadonlyArray<string> = [TOKEN_2022_PROGRAM_ID.toBase58(), ASSOCIATED_TOKEN_PROGRAM, SYSTEM_PROGRAM_ID]

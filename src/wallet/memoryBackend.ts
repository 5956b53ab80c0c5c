/** Key backend `memory`: keys live only in this process and are gone after a restart (ephemeral). */
import { type Ed25519Key, generateKey } from "./ed25519.js"

export class MemoryBackend {
  private readonly keys = new Map<string, Ed25519Key>()

  async create(walletId: string): Promise<Ed25519Key> {
    const { key, seed } = generateKey()
    seed.fill(0)
    this.keys.set(walletId, key)
    return key
  }

  async load(walletId: string): Promise<Ed25519Key | undefined> {
    return this.keys.get(walletId)
  }
}

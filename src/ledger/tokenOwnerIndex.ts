// Token accounts by owner, kept up to date from the accounts each transaction writes, so
// getTokenAccountsByOwner does not scan every token account on every request.
export class TokenOwnerIndex {
  private readonly accountsByOwner = new Map<string, Set<string>>()
  private readonly ownerByAccount = new Map<string, string>()

  /** Records the current owner of a token account (null when the account is closed or not a token account). */
  update(account: string, owner: string | null): void {
    const previous = this.ownerByAccount.get(account)
    if (previous === owner) return
    if (previous !== undefined) {
      const set = this.accountsByOwner.get(previous)
      set?.delete(account)
      if (set !== undefined && set.size === 0) this.accountsByOwner.delete(previous)
      this.ownerByAccount.delete(account)
    }
    if (owner === null) return
    this.ownerByAccount.set(account, owner)
    let set = this.accountsByOwner.get(owner)
    if (set === undefined) {
      set = new Set()
      this.accountsByOwner.set(owner, set)
    }
    set.add(account)
  }

  accountsOf(owner: string): string[] {
    return Array.from(this.accountsByOwner.get(owner) ?? [])
  }
}

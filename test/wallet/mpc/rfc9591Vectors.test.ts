/**
 * RFC 9591 Appendix E.1, FROST(Ed25519, SHA-512): the library the mpc backend signs with reproduces
 * the RFC's vectors (shares from the dealer polynomial, nonces from the given randomness, binding
 * factors through the signature shares to the final signature), and the result is a valid Ed25519
 * signature under the group public key as node:crypto checks it. The deterministic rng is used here only.
 */
import { ed25519, ed25519_FROST } from "@noble/curves/ed25519.js"
import bs58 from "bs58"
import { describe, expect, it } from "vitest"
import { verifiesUnder } from "../custodyChecks.js"

const hex = (s: string) => Uint8Array.from(Buffer.from(s, "hex"))
const toHex = (b: Uint8Array) => Buffer.from(b).toString("hex")

// RFC 9591 E.1 (MIN 2, MAX 3, participants 1 and 3).
const V = {
  groupSecretKey: "7b1c33d3f5291d85de664833beb1ad469f7fb6025a0ec78b3a790c6e13a98304",
  groupPublicKey: "15d21ccd7ee42959562fc8aa63224c8851fb3ec85a3faf66040d380fb9738673",
  message: "74657374",
  coefficient: "178199860edd8c62f5212ee91eff1295d0d670ab4ed4506866bae57e7030b204",
  shares: {
    1: "929dcc590407aae7d388761cddb0c0db6f5627aea8e217f4a033f2ec83d93509",
    2: "a91e66e012e4364ac9aaa405fcafd370402d9859f7b6685c07eed76bf409e80d",
    3: "d3cb090a075eb154e82fdb4b3cb507f110040905468bb9c46da8bdea643a9a02"
  } as Record<number, string>,
  round1: {
    1: {
      hidingRandomness: "06894e04ee4aceec8619d5f6a0a180e2f47194d2ac306cba586b555e7c48d765",
      bindingRandomness: "40d6f879ff22e22409f7d808fed81f37118e7d3e4af71c0f44c60207553bcbce",
      hidingNonce: "ef6599dea4010581a72b3018c37c29a4341d7cab0773e8687ca74dcf14009701",
      bindingNonce: "2baadfa0c69aa60d517ad4751de372a73f9d89cfc39026601f18458cdec12605",
      hidingCommitment: "9b116f12589591a7e23fe8048059ab10ab48e67739e7a2fb3890f61a7999478c",
      bindingCommitment: "c39b66b7dfccb122da24f13587f9a08c4347cae70046ca15169adf90ba65854d"
    },
    3: {
      hidingRandomness: "fa5d950626782aade9e33fa781376d4888c2d1de7c37518bc248eb818ed0cdde",
      bindingRandomness: "7459a4d14ded0e365b085271be8dc6600d5b88f3978a2174297ffa32001a5afc",
      hidingNonce: "80f8d9a4b8f9366e1a0b618107c907cd3ee29fa9bb40b4691cc1bde696240005",
      bindingNonce: "2610b664a5a187b4855e87d2ff485bebdf043dc2f161fcd4854cd01dc0276404",
      hidingCommitment: "e679a2a971748ccfaabead4dbe8ac1def61275c186c79d471e1e45091ad1e687",
      bindingCommitment: "b2a942478453fabb6bd3181c56ba657413447b4136e1daea2484d396d1a516b3"
    }
  } as Record<number, Record<string, string>>,
  sigShares: {
    1: "60997f0142e43e8005027fe5ab7447dac00d22c2d7ddd9571a02613ba7d81c08",
    3: "79390e78bc59699c7af831f8f5fb478ec871a85f561a8641b5670ac4443f720f"
  } as Record<number, string>,
  sig: "154fb694ee7fcb37bf2381d94488c2a84b03b3352ad085feca81ad26d45852b7ecfe971ce4da95c4a95db93ac376b053897fca212ef85f99cf696bffeb178f07"
}

/** Hands out the given byte strings in order, as the RFC's random_bytes() would have. */
const scriptedRng = (...chunks: Array<string>) => {
  const queue = chunks.map(hex)
  return (length?: number) => {
    const next = queue.shift()
    if (next === undefined || next.length !== (length ?? 32)) throw new Error("unexpected randomness request")
    return next
  }
}

const F = ed25519_FROST
const signers = { min: 2, max: 3 }
const id = (n: number) => F.Identifier.fromNumber(n)

describe("RFC 9591 E.1 FROST(Ed25519, SHA-512)", () => {
  // The dealer's polynomial f(x) = s + a1*x gives the RFC's participant shares and group key.
  const dealer = F.utils.generateSecretPolynomial(signers, hex(V.groupSecretKey), [F.utils.Fn.fromBytes(hex(V.coefficient))])
  const shareOf = (n: number) => F.utils.Fn.add(dealer.secret, F.utils.Fn.mul(F.utils.Fn.fromBytes(hex(V.coefficient)), BigInt(n)))
  const pub = {
    signers,
    commitments: dealer.commitment,
    verifyingShares: Object.fromEntries([1, 2, 3].map((n) => [id(n), ed25519.Point.BASE.multiply(shareOf(n)).toBytes()]))
  }

  it("derives the participant shares and the group public key", () => {
    expect(toHex(dealer.commitment[0]!)).toBe(V.groupPublicKey)
    for (const n of [1, 2, 3]) {
      const share = F.utils.Fn.toBytes(shareOf(n))
      expect(toHex(share)).toBe(V.shares[n])
      F.validateSecret({ identifier: id(n), signingShare: hex(V.shares[n]!) }, pub)
    }
    expect(toHex(F.combineSecret([1, 3].map((n) => ({ identifier: id(n), signingShare: hex(V.shares[n]!) })), signers))).toBe(V.groupSecretKey)
  })

  it("reproduces nonces, commitments, signature shares and the signature of participants 1 and 3", () => {
    const message = hex(V.message)
    const secrets = Object.fromEntries([1, 3].map((n) => [n, { identifier: id(n), signingShare: hex(V.shares[n]!) }]))
    const rounds = Object.fromEntries(
      [1, 3].map((n) => [n, F.commit(secrets[n]!, scriptedRng(V.round1[n]!.hidingRandomness!, V.round1[n]!.bindingRandomness!))])
    )
    for (const n of [1, 3]) {
      expect(toHex(rounds[n]!.nonces.hiding)).toBe(V.round1[n]!.hidingNonce)
      expect(toHex(rounds[n]!.nonces.binding)).toBe(V.round1[n]!.bindingNonce)
      expect(toHex(rounds[n]!.commitments.hiding)).toBe(V.round1[n]!.hidingCommitment)
      expect(toHex(rounds[n]!.commitments.binding)).toBe(V.round1[n]!.bindingCommitment)
    }
    const commitmentList = [1, 3].map((n) => rounds[n]!.commitments)
    const shares: Record<string, Uint8Array> = {}
    for (const n of [1, 3]) {
      const share = F.signShare(secrets[n]!, pub, rounds[n]!.nonces, commitmentList, message)
      expect(toHex(share)).toBe(V.sigShares[n])
      shares[id(n)] = share
    }
    const signature = F.aggregate(pub, commitmentList, message, shares)
    expect(toHex(signature)).toBe(V.sig)
    expect(F.verify(signature, message, hex(V.groupPublicKey))).toBe(true)
    // A plain Ed25519 verifier (RFC 8032, node:crypto) accepts it: what Solana checks.
    expect(verifiesUnder(bs58.encode(hex(V.groupPublicKey)), message, signature)).toBe(true)
  })
})

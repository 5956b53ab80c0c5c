/**
 * A PKCS#11 token reached through pkcs11js: Ed25519 keys generated inside the token (private half
 * sensitive and non-extractable), signing with CKM_EDDSA. The token is found by its label (slot ids
 * change when a token is initialised), or by slot id when WALLET_HSM_SLOT is a number.
 */
import { createRequire } from "node:module"
import type * as Pkcs11 from "pkcs11js"

/**
 * pkcs11js, a native addon, loaded when a token is first opened: a service on another key backend never loads
 * it into its process.
 */
let loaded: typeof Pkcs11 | undefined
const loadPkcs11js = (): typeof Pkcs11 => (loaded ??= createRequire(import.meta.url)("pkcs11js") as typeof Pkcs11)

// PKCS#11 3.0 values that pkcs11js 2.x does not name (the brief asks us to define them ourselves).
export const CKK_EC_EDWARDS = 0x40
export const CKM_EC_EDWARDS_KEY_PAIR_GEN = 0x1055
export const CKM_EDDSA = 0x1057
/** DER of the curve OID id-Ed25519 (1.3.101.112), as CKA_EC_PARAMS. */
const ED25519_PARAMS = Buffer.from("06032b6570", "hex")

export interface TokenOptions {
  readonly modulePath: string
  readonly pin: string
  /** Token label, or a slot id in decimal; empty: the first slot holding a token. */
  readonly slot: string
}

const slotOf = (module: Pkcs11.PKCS11, selector: string): Pkcs11.Handle => {
  const slots = module.C_GetSlotList(true)
  if (selector === "" && slots.length > 0) return slots[0]!
  const byLabel = slots.find((slot) => module.C_GetTokenInfo(slot).label.trim() === selector)
  if (byLabel !== undefined) return byLabel
  if (/^\d+$/.test(selector)) {
    const byId = slots.find((slot) => BigInt(`0x${Buffer.from(slot).reverse().toString("hex") || "0"}`) === BigInt(selector))
    if (byId !== undefined) return byId
  }
  throw new Error(`no initialised token labelled or numbered ${selector}`)
}

/** CKA_EC_POINT is a DER OCTET STRING (04 20 <key>) on most tokens, the raw 32 bytes on some. */
const rawPoint = (value: Buffer): Uint8Array => {
  if (value.length === 34 && value[0] === 0x04 && value[1] === 0x20) return new Uint8Array(value.subarray(2))
  if (value.length === 32) return new Uint8Array(value)
  throw new Error("unexpected CKA_EC_POINT encoding")
}

export class Pkcs11Token {
  private readonly handles = new Map<string, Pkcs11.Handle>()

  private constructor(
    private readonly module: Pkcs11.PKCS11,
    private readonly session: Pkcs11.Handle
  ) {}

  static open(options: TokenOptions): Pkcs11Token {
    const pk = loadPkcs11js()
    const module = new pk.PKCS11()
    module.load(options.modulePath)
    module.C_Initialize()
    try {
      const session = module.C_OpenSession(slotOf(module, options.slot), pk.CKF_SERIAL_SESSION | pk.CKF_RW_SESSION)
      module.C_Login(session, pk.CKU_USER, options.pin)
      return new Pkcs11Token(module, session)
    } catch (error) {
      module.C_Finalize()
      module.close()
      throw error
    }
  }

  /** An Ed25519 key pair made inside the token, labelled with the wallet id; answers the public key. */
  generate(walletId: string): Uint8Array {
    const pk = loadPkcs11js()
    const id = Buffer.from(walletId, "utf8")
    const { publicKey, privateKey } = this.module.C_GenerateKeyPair(
      this.session,
      { mechanism: CKM_EC_EDWARDS_KEY_PAIR_GEN },
      [
        { type: pk.CKA_CLASS, value: pk.CKO_PUBLIC_KEY },
        { type: pk.CKA_KEY_TYPE, value: CKK_EC_EDWARDS },
        { type: pk.CKA_EC_PARAMS, value: ED25519_PARAMS },
        { type: pk.CKA_TOKEN, value: true },
        { type: pk.CKA_VERIFY, value: true },
        { type: pk.CKA_LABEL, value: walletId },
        { type: pk.CKA_ID, value: id }
      ],
      [
        { type: pk.CKA_CLASS, value: pk.CKO_PRIVATE_KEY },
        { type: pk.CKA_KEY_TYPE, value: CKK_EC_EDWARDS },
        { type: pk.CKA_TOKEN, value: true },
        { type: pk.CKA_PRIVATE, value: true },
        { type: pk.CKA_SENSITIVE, value: true },
        { type: pk.CKA_EXTRACTABLE, value: false },
        { type: pk.CKA_SIGN, value: true },
        { type: pk.CKA_LABEL, value: walletId },
        { type: pk.CKA_ID, value: id }
      ]
    )
    this.handles.set(walletId, privateKey)
    const [point] = this.module.C_GetAttributeValue(this.session, publicKey, [{ type: pk.CKA_EC_POINT }])
    return rawPoint(point!.value as Buffer)
  }

  /** The handle of the wallet's private key, or undefined when the token holds none. */
  privateKeyOf(walletId: string): Pkcs11.Handle | undefined {
    const cached = this.handles.get(walletId)
    if (cached !== undefined) return cached
    const pk = loadPkcs11js()
    this.module.C_FindObjectsInit(this.session, [
      { type: pk.CKA_CLASS, value: pk.CKO_PRIVATE_KEY },
      { type: pk.CKA_ID, value: Buffer.from(walletId, "utf8") }
    ])
    const found = this.module.C_FindObjects(this.session, 2)
    this.module.C_FindObjectsFinal(this.session)
    if (found.length !== 1) return undefined
    this.handles.set(walletId, found[0]!)
    return found[0]
  }

  sign(walletId: string, message: Uint8Array): Uint8Array {
    const key = this.privateKeyOf(walletId)
    if (key === undefined) throw new Error(`the token holds no key for wallet ${walletId}`)
    this.module.C_SignInit(this.session, { mechanism: CKM_EDDSA }, key)
    return new Uint8Array(this.module.C_Sign(this.session, Buffer.from(message), Buffer.alloc(64)))
  }

  /** Attributes of the wallet's private key (used to show it is sensitive and non-extractable). */
  attributes(walletId: string, types: ReadonlyArray<number>) {
    const key = this.privateKeyOf(walletId)
    if (key === undefined) throw new Error(`the token holds no key for wallet ${walletId}`)
    return this.module.C_GetAttributeValue(this.session, key, types.map((type) => ({ type })))
  }

  close() {
    try {
      this.module.C_Logout(this.session)
      this.module.C_CloseSession(this.session)
    } finally {
      this.module.C_Finalize()
      this.module.close()
    }
  }
}

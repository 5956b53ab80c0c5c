// The one error type of the linker: its message names the object file and what is wrong with it.
export class LinkError extends Error {
  override readonly name = "LinkError"
  constructor(readonly file: string, readonly reason: string) {
    super(`${file}: ${reason}`)
  }
}

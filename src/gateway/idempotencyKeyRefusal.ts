/**
 * The 400 of a create or move sent with an idempotency key its tenant already used for another request
 * (`earlier`: what that request made), or for one that was being made at the same moment and is gone.
 * Nothing is created or changed.
 */
import { ValidationError } from "../../schemas/errors.js"

export const idempotencyKeyTaken = (key: string, earlier: { readonly resource: string; readonly id: string } | undefined) =>
  new ValidationError({
    message: earlier === undefined
      ? `idempotencyKey: '${key}' was used at the same time for another request, since undone; send it again`
      : `idempotencyKey: '${key}' was already used for ${earlier.resource} ${earlier.id} with a different request`,
    field: "idempotencyKey"
  })

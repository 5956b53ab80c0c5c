/**
 * The gateway's API as the console uses it: every call sends the operator's key and reads the
 * envelope. A failure becomes an ApiError carrying the envelope's own message, so the page shows what
 * the service said (and a 403 for a missing scope can disable a view instead of breaking it).
 */
export interface Envelope<T> {
  readonly status: "success" | "failure"
  readonly errorCode: string | null
  readonly failedAt: string | null
  readonly stage: string
  readonly traceId: string
  readonly data: T
  readonly error?: string
  readonly errorMessage?: string
}

export class ApiError extends Error {
  constructor(
    readonly httpStatus: number,
    message: string,
    readonly errorCode: string | null,
    readonly data: unknown
  ) {
    super(message)
  }
  /** A 403 that names a missing scope (as opposed to a policy refusal or a tenant mismatch). */
  get isMissingScope(): boolean {
    return this.httpStatus === 403 && /scope/i.test(this.message)
  }
}

export type Method = "GET" | "POST" | "PUT" | "DELETE"

/** Calls the API and answers `data`; any failure envelope (or a non-JSON answer) is an ApiError. */
export const call = async <T>(apiKey: string, method: Method, path: string, body?: unknown): Promise<T> => {
  let response: Response
  try {
    response = await fetch(path, {
      method,
      headers: { "x-api-key": apiKey, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    })
  } catch {
    throw new ApiError(0, "the gateway cannot be reached", null, null)
  }
  let envelope: Envelope<T>
  try {
    envelope = (await response.json()) as Envelope<T>
  } catch {
    throw new ApiError(response.status, `the gateway answered ${response.status} without an envelope`, null, null)
  }
  if (envelope.status !== "success") {
    throw new ApiError(response.status, envelope.errorMessage ?? envelope.error ?? `request failed (${response.status})`, envelope.errorCode, envelope.data)
  }
  return envelope.data
}

/** A query string from the filled-in fields only. */
export const query = (fields: Record<string, string | number | undefined>): string => {
  const params = new URLSearchParams()
  for (const [name, value] of Object.entries(fields)) if (value !== undefined && value !== "") params.set(name, String(value))
  const text = params.toString()
  return text === "" ? "" : `?${text}`
}

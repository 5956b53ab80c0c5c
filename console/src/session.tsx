/**
 * The logged-in session: the operator's API key, kept for this tab only (sessionStorage: gone when the
 * tab closes), and `api`, the API bound to it.
 */
import { createContext } from "preact"
import { useContext } from "preact/hooks"
import { call, type Method } from "./api"

const STORAGE_KEY = "agent-custody.apiKey"

export const storedKey = (): string | null => sessionStorage.getItem(STORAGE_KEY)
export const storeKey = (key: string): void => sessionStorage.setItem(STORAGE_KEY, key)
export const forgetKey = (): void => sessionStorage.removeItem(STORAGE_KEY)

export interface Session {
  readonly apiKey: string
  readonly api: <T>(method: Method, path: string, body?: unknown) => Promise<T>
}

export const sessionOf = (apiKey: string): Session => ({ apiKey, api: (method, path, body) => call(apiKey, method, path, body) })

export const SessionContext = createContext<Session | null>(null)

export const useSession = (): Session => {
  const session = useContext(SessionContext)
  if (session === null) throw new Error("useSession outside a logged-in page")
  return session
}

/**
 * Loading a GET route for a view: data, the ApiError if it failed, and reload. `pollMs` refreshes it
 * while the view is open (charts, actors). A path of null loads nothing (nothing selected yet).
 */
import { useCallback, useEffect, useRef, useState } from "preact/hooks"
import { ApiError } from "./api"
import { useSession } from "./session"

export interface Loaded<T> {
  readonly data: T | undefined
  readonly error: ApiError | undefined
  readonly loading: boolean
  /** The path the data shown answers: the previous path's data stays shown until the new one arrives. */
  readonly loadedPath: string | undefined
  readonly reload: () => Promise<void>
}

export const useApi = <T>(path: string | null, options: { pollMs?: number } = {}): Loaded<T> => {
  const { api } = useSession()
  const [data, setData] = useState<T | undefined>(undefined)
  const [error, setError] = useState<ApiError | undefined>(undefined)
  const [loading, setLoading] = useState(path !== null)
  const [loadedPath, setLoadedPath] = useState<string | undefined>(undefined)
  const current = useRef(path)
  current.current = path
  // Requests are numbered: an answer older than one already shown is dropped (a poll sent before an action's
  // reload must not put back what the action changed).
  const issued = useRef(0)
  const shown = useRef(0)

  const reload = useCallback(async () => {
    if (path === null) return
    const ticket = ++issued.current
    try {
      const result = await api<T>("GET", path)
      if (current.current !== path || ticket < shown.current) return
      shown.current = ticket
      setData(result)
      setLoadedPath(path)
      setError(undefined)
    } catch (caught) {
      if (current.current !== path || ticket < shown.current) return
      shown.current = ticket
      setError(caught instanceof ApiError ? caught : new ApiError(0, String(caught), null, null))
    } finally {
      if (current.current === path) setLoading(false)
    }
  }, [api, path])

  useEffect(() => {
    setData(undefined)
    setLoadedPath(undefined)
    setError(undefined)
    setLoading(path !== null)
    void reload()
    if (options.pollMs === undefined || path === null) return
    const timer = setInterval(() => void reload(), options.pollMs)
    return () => clearInterval(timer)
  }, [reload, options.pollMs])

  return { data, error, loading, loadedPath, reload }
}

/** Runs an action (approve, pause, ...) and keeps its error for display. */
export const useAction = () => {
  const [error, setError] = useState<ApiError | undefined>(undefined)
  const [busy, setBusy] = useState(false)
  const run = useCallback(async <T,>(action: () => Promise<T>): Promise<T | undefined> => {
    setBusy(true)
    setError(undefined)
    try {
      return await action()
    } catch (caught) {
      setError(caught instanceof ApiError ? caught : new ApiError(0, String(caught), null, null))
      return undefined
    } finally {
      setBusy(false)
    }
  }, [])
  return { run, error, busy }
}

/**
 * The stage stream (WebSocket /api/v1/stream?apiKey=...): every stage transition of the tenant's
 * transactions, as they happen. Reconnects after a drop; `state` tells the page whether it is live.
 * `onGap` runs when events may have been missed: the service says so (`gap`), or the socket was
 * reconnected; the page reads again what it shows.
 */
import { useEffect, useRef, useState } from "preact/hooks"
import { useSession } from "./session"
import type { StageEvent } from "./types"

export type StreamState = "connecting" | "live" | "closed"

export const useStageStream = (onEvent: (event: StageEvent) => void, filter: { txId?: string } = {}, onGap: () => void = () => {}): StreamState => {
  const { apiKey } = useSession()
  const [state, setState] = useState<StreamState>("connecting")
  const handler = useRef(onEvent)
  handler.current = onEvent
  const gapHandler = useRef(onGap)
  gapHandler.current = onGap

  useEffect(() => {
    let socket: WebSocket | undefined
    let retry: ReturnType<typeof setTimeout> | undefined
    let stopped = false
    let openedBefore = false
    const connect = () => {
      const scheme = location.protocol === "https:" ? "wss:" : "ws:"
      const params = new URLSearchParams({ apiKey, ...(filter.txId === undefined ? {} : { txId: filter.txId }) })
      socket = new WebSocket(`${scheme}//${location.host}/api/v1/stream?${params}`)
      setState("connecting")
      socket.onopen = () => {
        setState("live")
        if (openedBefore) gapHandler.current()
        openedBefore = true
      }
      socket.onmessage = (message) => {
        const parsed = JSON.parse(String(message.data)) as { type: string }
        if (parsed.type === "stage") handler.current(parsed as StageEvent)
        else if (parsed.type === "gap") gapHandler.current()
      }
      socket.onclose = () => {
        setState("closed")
        if (!stopped) retry = setTimeout(connect, 2000)
      }
    }
    connect()
    return () => {
      stopped = true
      clearTimeout(retry)
      socket?.close()
    }
  }, [apiKey, filter.txId])

  return state
}

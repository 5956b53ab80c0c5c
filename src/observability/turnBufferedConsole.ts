/**
 * Log lines leave the process once per turn of the event loop, not once per line.
 *
 * On Linux, Node writes to a pipe or a file synchronously: every console.log is a system call, and the
 * text logger writes a line per annotation (one transaction's outcome is six or seven writes). Under
 * load that was about 2% of the service's CPU, more on a virtual machine where system calls are dear.
 * The console installed here keeps what is written during a turn and hands it to the real stream in one
 * write when the turn ends (setImmediate), and at once when the process exits, so nothing written
 * before an exit or a failed start is lost. What is lost to a SIGKILL is at most one turn's lines.
 */
import { Console } from "node:console"
import { Writable } from "node:stream"

/** A stream that collects a turn's text and writes it to `target` in one piece (`flush` writes it now). */
export const turnBuffered = (target: Pick<NodeJS.WritableStream, "write">) => {
  let pending: Array<string> = []
  let scheduled = false
  const flush = () => {
    scheduled = false
    if (pending.length === 0) return
    const text = pending.join("")
    pending = []
    target.write(text)
  }
  const stream = new Writable({
    decodeStrings: false,
    write(chunk: string | Buffer, _encoding, done) {
      pending.push(String(chunk))
      if (!scheduled) {
        scheduled = true
        setImmediate(flush)
      }
      done()
    }
  })
  return { stream, flush }
}

/**
 * Routes the global console's writing methods (which Effect's loggers call: its default Console service
 * holds the global console object itself) through one console whose output is written once per turn.
 * Colours and `console.group` indentation behave as before.
 */
export const installTurnBufferedConsole = () => {
  const stdout = turnBuffered(process.stdout)
  const stderr = turnBuffered(process.stderr)
  const buffered = new Console({ stdout: stdout.stream, stderr: stderr.stream, colorMode: process.stdout.isTTY === true })
  process.once("exit", () => {
    stdout.flush()
    stderr.flush()
  })
  Object.assign(globalThis.console, {
    log: buffered.log.bind(buffered),
    info: buffered.info.bind(buffered),
    debug: buffered.debug.bind(buffered),
    warn: buffered.warn.bind(buffered),
    error: buffered.error.bind(buffered),
    trace: buffered.trace.bind(buffered),
    dir: buffered.dir.bind(buffered),
    table: buffered.table.bind(buffered),
    group: buffered.group.bind(buffered),
    groupCollapsed: buffered.groupCollapsed.bind(buffered),
    groupEnd: buffered.groupEnd.bind(buffered)
  })
}

/**
 * What a process prints before (or outside) its Effect logger: the start-up announcement, a failed start and
 * Node's own warnings. Text by default; with LOG_FORMAT=json one JSON object per line in the shape of Effect's
 * JSON logger (message, logLevel, timestamp, annotations, spans), so a log shipper reads every line of the
 * process, the first ones included.
 */

export type LogFormat = "text" | "json"

export interface StartupLine {
  readonly level: "INFO" | "WARN" | "ERROR"
  /** The line as text mode prints it. */
  readonly text: string
  /** The same for JSON mode: a message without values, the values as annotations. */
  readonly message: string
  readonly annotations?: Readonly<Record<string, unknown>>
}

/** A warning as a start-up line: "warning: ..." as text, the warning itself as JSON's message. */
export const warningLine = (warning: string, annotations?: Readonly<Record<string, unknown>>): StartupLine => ({
  level: "WARN",
  text: `warning: ${warning}`,
  message: warning,
  ...(annotations === undefined ? {} : { annotations })
})

/** LOG_FORMAT as read before configuration is loaded (a bad value is reported by the configuration check). */
export const logFormatOf = (value: string | undefined): LogFormat => (value?.trim() === "json" ? "json" : "text")

export const formatStartupLines = (format: LogFormat, lines: ReadonlyArray<StartupLine>, now: Date = new Date()): string =>
  lines
    .map((line) =>
      format === "text"
        ? line.text
        : JSON.stringify({ message: line.message, logLevel: line.level, timestamp: now.toISOString(), annotations: line.annotations ?? {}, spans: {} })
    )
    .join("\n")

/**
 * Under JSON, Node's own warnings (a dependency's deprecation, say) become JSON lines on stderr instead of its
 * default text; in text mode Node prints them as always.
 */
export const jsonProcessWarnings = (format: LogFormat, annotations: Readonly<Record<string, unknown>> = {}) => {
  if (format !== "json") return
  process.removeAllListeners("warning")
  process.on("warning", (warning) => {
    const line = { level: "WARN" as const, text: warning.message, message: warning.message, annotations: { warning: warning.name, ...annotations } }
    process.stderr.write(`${formatStartupLines("json", [line])}\n`)
  })
}

/** Small statistics and table helpers for the benchmarks. */

export const percentile = (values: ReadonlyArray<number>, p: number): number => {
  if (values.length === 0) return Number.NaN
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!
}

export const mean = (values: ReadonlyArray<number>) => (values.length === 0 ? Number.NaN : values.reduce((a, b) => a + b, 0) / values.length)

export const ms = (value: number) => (Number.isNaN(value) ? "-" : value >= 100 ? value.toFixed(0) : value.toFixed(1))

/** A plain text table: the first row is the header; columns are padded to their widest cell. */
export const table = (rows: ReadonlyArray<ReadonlyArray<string>>): string => {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? "").length)))
  const line = (row: ReadonlyArray<string>) =>
    row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join("  ")
  return [line(rows[0]!), widths.map((w) => "-".repeat(w)).join("  "), ...rows.slice(1).map(line)].join("\n")
}

export const sleep = (millis: number) => new Promise((resolve) => setTimeout(resolve, millis))

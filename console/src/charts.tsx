/** A small horizontal bar chart in inline SVG (no chart library: a few rects and labels). */
export interface Bar {
  readonly label: string
  readonly value: number
  readonly text?: string
}

export const BarChart = (props: { bars: ReadonlyArray<Bar>; max?: number; testId?: string }) => {
  const rowHeight = 22
  const labelWidth = 260
  const width = 900
  const max = props.max ?? Math.max(1, ...props.bars.map((bar) => bar.value))
  const height = Math.max(rowHeight, props.bars.length * rowHeight)
  return (
    <svg class="chart" data-testid={props.testId} viewBox={`0 0 ${width} ${height}`} width="100%" height={height} role="img">
      {props.bars.map((bar, index) => {
        const barWidth = Math.max(1, ((width - labelWidth - 260) * Math.max(0, bar.value)) / max)
        const y = index * rowHeight
        return (
          <g key={bar.label}>
            <text x={labelWidth - 6} y={y + 15} text-anchor="end" class="chart-label">
              {bar.label.length > 40 ? `${bar.label.slice(0, 39)}…` : bar.label}
            </text>
            <rect x={labelWidth} y={y + 4} width={barWidth} height={rowHeight - 8} rx="2" class="chart-bar" />
            <text x={labelWidth + barWidth + 6} y={y + 15} class="chart-value">
              {bar.text ?? String(bar.value)}
            </text>
          </g>
        )
      })}
    </svg>
  )
}

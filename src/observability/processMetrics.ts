/**
 * The process's own figures on /metrics (prom-client's default collectors): CPU seconds, resident and heap
 * memory, event-loop delay, garbage-collection pauses, open handles. What an operator sizes processes by
 * (docs/benchmarks.md, the capacity model) and watches for a leak. One registry per process, not per
 * service instance: the figures are the process's, and the collectors (a GC observer, an event-loop delay
 * monitor) are made once. They start with the first scrape, so a process nobody scrapes pays nothing;
 * the GC and event-loop figures count from then, the CPU and memory ones are the process's whole.
 */
import { collectDefaultMetrics, Registry } from "prom-client"

/**
 * Left out: between two scrapes with no event-loop sample (they come every 10 ms) the mean and deviation are
 * NaN, which prom-client writes as `Nan`, a value some scrapers refuse along with the whole scrape; the
 * minimum is then a sentinel (2^63 ns). The lag itself, its p50, p90, p99 and maximum stay.
 */
const UNSAFE_FAMILIES = ["nodejs_eventloop_lag_mean_seconds", "nodejs_eventloop_lag_stddev_seconds", "nodejs_eventloop_lag_min_seconds"]

let registry: Registry | undefined

export const processMetricsRegistry = (): Registry => {
  if (registry === undefined) {
    registry = new Registry()
    collectDefaultMetrics({ register: registry })
    for (const family of UNSAFE_FAMILIES) registry.removeSingleMetric(family)
  }
  return registry
}

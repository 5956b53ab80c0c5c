/**
 * The depth of the pipeline's outbox by job status, as /metrics shows it. Declared here and provided
 * by the pipeline (pipeline/outbox.ts, OutboxDepthLive), so observability never imports the
 * pipeline that reports to it.
 */
import { Context, type Effect } from "effect"

export class OutboxDepth extends Context.Tag("OutboxDepth")<
  OutboxDepth,
  { readonly byStatus: Effect.Effect<Readonly<Record<string, number>>> }
>() {}

/**
 * Ids of rows in the tables that grow with every transfer (transactions, outbox jobs, audit events, agent
 * actions): UUIDs of version 7 (RFC 9562), whose first 48 bits are the millisecond they were made.
 *
 * Why not random (version 4) ids: each insert puts its key on a random leaf page of the primary key (and
 * of every index keyed by such an id, as audit events by transaction). Once the table is large, those
 * pages are cold, and after every checkpoint the first change to each costs a full-page image in the
 * WAL. Time-ordered keys land on the few pages at the index's right edge (docs/decisions/database.md,
 * bench:growth's "WAL after a checkpoint").
 *
 * Each id draws fresh randomness for all its other bits (the `uuid` package's sequence counter is not
 * used: `{}` asks for a random one), so an id tells nothing about the ids made beside it but their
 * millisecond. Ids are no secret here in any case: every read is scoped by tenant.
 */
import { v7 } from "uuid"

export const newRowId = (): string => v7({})

import type { NodePgDatabase } from "drizzle-orm/node-postgres";
import type * as schema from "./schema";

/** Drizzle over the pool (statements outside a transaction) or over one transaction's client. */
export type PgDb = NodePgDatabase<typeof schema>;

/**
 * How a repository call reaches the database: `run(op)` gives `op` the connection to use (the pool
 * outside a transaction, the transaction's client inside one) and turns a lost or unreachable
 * server into `StoreUnavailableError`.
 */
export interface PgExecutor {
  run<T>(op: (db: PgDb) => Promise<T>): Promise<T>;
}

import { drizzle } from "drizzle-orm/node-postgres";
import pg from "pg";
import { type Store, StoreUnavailableError } from "../port/store";
import { pgDialect } from "../query/dialects";
import { createQuery, type Executor, type Query, transactionExecutor } from "../query/query";
import type { SecretBox } from "../secrets/secret-box";
import { createRepositories } from "../secrets/secret-rows";
import * as schema from "../tables/pg";
import { isConnectionError, reason, storeError } from "./errors";
import { createPgNotices } from "./notices";
import { defaultPgMigrationsFolder, prepareDatabase } from "./prepare";

export interface PostgresStoreOptions {
  /** Seals the secrets the store keeps; see `SqliteStoreOptions.secretBox`. */
  secretBox: SecretBox;
  /** Folder holding drizzle-kit's pg migrations; defaults to this package's `drizzle-pg/`. */
  migrationsFolder?: string;
  /** Connections in the pool. Default 10. */
  maxConnections?: number;
  /** How long getting a connection may take before `StoreUnavailableError`. Default 5000 ms. */
  connectTimeoutMs?: number;
  /**
   * How long a call waits for a lock (the store's transaction lock, a row another transaction
   * holds) before `StoreBusyError`: PostgreSQL's `lock_timeout`. Default 2000 ms.
   */
  busyRetryMs?: number;
  /**
   * Another store over a database a store of this process already opened (the ingest worker's):
   * connects, but neither migrates nor seals — the first store did.
   */
  attach?: boolean;
  /**
   * The leases' clock in epoch milliseconds, for tests that move a fake one. Default: the
   * database server's clock (one clock for every replica).
   */
  now?: () => number;
}

/** Transaction-level advisory lock every transaction of every replica takes first. */
const TRANSACTION_LOCK = 7_251_002;

/**
 * The PostgreSQL implementation of the store port over node-postgres and Drizzle's pg dialect.
 * Opening connects, applies the committed migrations (`drizzle-pg/`) and seals stored secrets;
 * it rejects with `StoreUnavailableError` when the server cannot be reached or refuses us.
 *
 * Outside a transaction each call is one statement on a pooled connection. `transaction(work)`
 * takes one pooled client, runs BEGIN, then `pg_advisory_xact_lock` — so transactions are
 * serialised across every replica and a count-then-insert cannot overshoot — then `work`, then
 * COMMIT (ROLLBACK when it rejects). A lost server turns every call into `StoreUnavailableError`;
 * broken connections are dropped from the pool and new ones made once the server is back.
 */
export async function createPostgresStore(
  url: string,
  options: PostgresStoreOptions,
): Promise<Store> {
  const busyRetryMs = Math.max(1, Math.round(options.busyRetryMs ?? 2_000));
  const pool = new pg.Pool({
    connectionString: url,
    max: options.maxConnections ?? 10,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5_000,
    options: `-c lock_timeout=${busyRetryMs}`,
    application_name: "sandbox-server",
  });
  // An idle connection the server cut (restart, shutdown) is dropped by the pool; without a
  // listener that event would end the process.
  pool.on("error", () => undefined);
  try {
    const client = await pool.connect().catch((error: unknown) => {
      throw new StoreUnavailableError(`cannot connect to the database: ${reason(error)}`, {
        cause: error,
      });
    });
    try {
      if (!options.attach) {
        await prepareDatabase(
          client,
          options.secretBox,
          options.migrationsFolder ?? defaultPgMigrationsFolder,
        );
      }
    } finally {
      client.release();
    }
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw storeError(error);
  }

  const dialect = pgDialect(options.now);
  const pooled = createQuery(drizzle(pool, { schema }), schema, dialect);
  const run = <T>(q: Query, op: (q: Query) => Promise<T>): Promise<T> =>
    op(q).catch((error: unknown) => {
      throw storeError(error);
    });

  async function inTransaction<T>(work: (exec: Executor) => Promise<T>): Promise<T> {
    const client = await pool.connect().catch((error: unknown) => {
      throw storeError(error);
    });
    let broken: Error | undefined;
    try {
      await client.query("BEGIN");
      await client.query("SELECT pg_advisory_xact_lock($1)", [TRANSACTION_LOCK]);
      const scope = { open: true };
      const q = createQuery(drizzle(client, { schema }), schema, dialect);
      let result: T;
      try {
        result = await work(transactionExecutor(scope, (op) => run(q, op)));
      } catch (error) {
        await client.query("ROLLBACK").catch((rollbackError: unknown) => {
          broken =
            rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
        });
        throw error;
      } finally {
        scope.open = false;
      }
      await client.query("COMMIT");
      return result;
    } catch (error) {
      if (isConnectionError(error))
        broken = error instanceof Error ? error : new Error(String(error));
      else if (!broken) await client.query("ROLLBACK").catch(() => undefined);
      throw storeError(error);
    } finally {
      // A client whose connection failed is destroyed, not handed out again.
      client.release(broken);
    }
  }

  const outside: Executor = {
    read: (op) => run(pooled, op),
    write: (op) => run(pooled, op),
    atomic: (op) => inTransaction((exec) => exec.write(op)),
  };

  return {
    ...createRepositories(outside, options.secretBox),
    shared: true,
    notices: createPgNotices(url, pool),
    transaction: (work) =>
      inTransaction((exec) => work(createRepositories(exec, options.secretBox))),
    async close() {
      await pool.end();
    },
  };
}

import type { Store } from "../port/store";
import { sqliteDialect } from "../query/dialects";
import {
  createQuery,
  type Executor,
  type Query,
  type QueryDb,
  type Tables,
  transactionExecutor,
} from "../query/query";
import * as tables from "../schema";
import type { SecretBox } from "../secrets/secret-box";
import { createRepositories } from "../secrets/secret-rows";
import { busyError, isBusy, retryWhileBusy } from "./busy";
import { type CreateDbOptions, createDb, type Db, openReadConnection } from "./client";
import { Mutex } from "./mutex";
import { sealStoredSecrets } from "./seal-stored-secrets";
import { startWalCheckpointer } from "./wal-checkpointer";

export interface SqliteStoreOptions {
  /**
   * Seals the secrets the store keeps (session keys, webhook secrets) before they reach the file
   * and opens them on the way out. Opening the store seals values still in plain text and refuses
   * a box whose key does not open the sealed ones (`SecretsKeyMismatchError`).
   */
  secretBox: SecretBox;
  /** Folder holding drizzle-kit's migrations; defaults to this package's `drizzle/`. */
  migrationsFolder?: CreateDbOptions["migrationsFolder"];
  /**
   * SQLite's own busy timeout: how long one statement may spin, synchronously, on a lock held by
   * another process. Kept tiny, because that wait blocks the event loop. Default 5 ms.
   */
  busyTimeoutMs?: number;
  /**
   * How long one call keeps retrying a locked database (asynchronously, on timers) and waits for
   * the store's write lock before it fails with `StoreBusyError`. Default 2000 ms.
   */
  busyRetryMs?: number;
  /**
   * Another store over a file a store of this process already opened (the ingest worker's): no
   * migrations, no sealing, no checkpoints of its own — the first store does those.
   */
  attach?: boolean;
  /** The leases' clock in epoch milliseconds (tests move a fake one). Default `Date.now`. */
  now?: () => number;
}

export const DEFAULT_BUSY_TIMEOUT_MS = 5;
export const DEFAULT_BUSY_RETRY_MS = 2_000;
/** Opening migrates; a lock held meanwhile may be waited for synchronously: nothing is served yet. */
const OPEN_BUSY_TIMEOUT_MS = 5_000;

/**
 * The SQLite implementation of the store port over better-sqlite3 (see this package's README for
 * why it is safe). In short: one write connection behind an async mutex — a transaction holds the
 * mutex from BEGIN IMMEDIATE to COMMIT/ROLLBACK, and writes outside a transaction wait for it — and,
 * for a file, a second read-only connection for reads outside transactions, which in WAL mode sees
 * the last committed state and never a transaction's uncommitted rows. `:memory:` has one
 * connection only, so there reads wait for an open transaction too. A locked database is retried
 * on timers, never by blocking the event loop, up to `busyRetryMs`, then `StoreBusyError`.
 * Secrets are sealed by `secretBox` at rest; the repositories hand out plain text.
 */
export function createSqliteStore(path: string, options: SqliteStoreOptions): Store {
  const busyTimeoutMs = options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
  const busyRetryMs = options.busyRetryMs ?? DEFAULT_BUSY_RETRY_MS;
  const attach = options.attach === true;
  const writer = createDb(path, {
    busyTimeoutMs: OPEN_BUSY_TIMEOUT_MS,
    attach,
    ...(options.migrationsFolder ? { migrationsFolder: options.migrationsFolder } : {}),
  });
  try {
    if (!attach) sealStoredSecrets(writer.sqlite, options.secretBox);
  } catch (error) {
    writer.close();
    throw error;
  }
  writer.sqlite.pragma(`busy_timeout = ${busyTimeoutMs}`);
  const inMemory = path === ":memory:" || path === "";
  const reader = inMemory ? null : openReadConnection(path, busyTimeoutMs);
  const checkpointer = inMemory || attach ? null : startWalCheckpointer(path, writer.sqlite);
  // The first store's checkpointer copies the log for every connection to the file.
  if (attach) writer.sqlite.pragma("wal_autocheckpoint = 0");
  const dialect = sqliteDialect(options.now ?? Date.now);
  // The repositories are typed in the pg dialect; SQLite's tables infer the same rows.
  const query = (db: Db) =>
    createQuery(db as unknown as QueryDb, tables as unknown as Tables, dialect);
  const writeQuery = query(writer.db);
  const readQuery = reader ? query(reader.db) : null;
  const begin = writer.sqlite.prepare("BEGIN IMMEDIATE");
  const commit = writer.sqlite.prepare("COMMIT");
  const rollback = writer.sqlite.prepare("ROLLBACK");
  const mutex = new Mutex();
  const deadline = () => performance.now() + busyRetryMs;
  const lockTimeout = () => busyError();

  /**
   * Runs `op` on the write connection holding the mutex, retrying while the file is locked. The
   * mutex is held until `op` settles, so no transaction begins between two of its statements.
   */
  async function locked<T>(op: (q: Query) => Promise<T>): Promise<T> {
    const until = deadline();
    await mutex.acquire(until, lockTimeout);
    try {
      return await retryWhileBusy(() => op(writeQuery), until);
    } finally {
      mutex.release();
    }
  }

  /** Reads on the read connection: WAL gives them the last committed state, never waiting. */
  function read<T>(op: (q: Query) => Promise<T>, q: Query): Promise<T> {
    const retry = (error: unknown) => {
      if (!isBusy(error)) throw error;
      return retryWhileBusy(() => op(q), deadline());
    };
    try {
      return op(q).then(undefined, retry);
    } catch (error) {
      return retry(error);
    }
  }

  function rollbackIfOpen(): void {
    if (writer.sqlite.inTransaction) rollback.run();
  }

  async function inTransaction<T>(work: (exec: Executor) => Promise<T>): Promise<T> {
    const until = deadline();
    await mutex.acquire(until, lockTimeout);
    try {
      await retryWhileBusy(() => begin.run(), until);
      const scope = { open: true };
      let result: T;
      try {
        result = await work(
          transactionExecutor(scope, (op) =>
            op(writeQuery).catch((error: unknown) => {
              throw isBusy(error) ? busyError(error) : error;
            }),
          ),
        );
      } catch (error) {
        rollbackIfOpen();
        throw error;
      } finally {
        scope.open = false;
      }
      try {
        commit.run();
      } catch (error) {
        rollbackIfOpen();
        throw isBusy(error) ? busyError(error) : error;
      }
      return result;
    } finally {
      mutex.release();
    }
  }

  const outside: Executor = {
    // `:memory:` has one connection: a read there waits for an open transaction like a write.
    read: (op) => (readQuery ? read(op, readQuery) : locked(op)),
    write: locked,
    atomic: (op) => inTransaction((exec) => exec.write(op)),
  };

  return {
    ...createRepositories(outside, options.secretBox),
    shared: false,
    transaction: (work) =>
      inTransaction((exec) => work(createRepositories(exec, options.secretBox))),
    async close() {
      await mutex.acquire();
      try {
        // The worker's connection first: the write connection, closed last, then checkpoints
        // what is left and removes the log.
        await checkpointer?.close();
        reader?.close();
        writer.close();
      } finally {
        mutex.release();
      }
    },
  };
}

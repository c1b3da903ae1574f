import type { Repositories } from "../port/repositories";
import type { Store } from "../port/store";
import type { SecretBox } from "../secrets/secret-box";
import { secretRows } from "../secrets/secret-rows";
import { bindRepositories, type Executor } from "./bind-repositories";
import { busyError, isBusy, retryWhileBusy } from "./busy";
import { type CreateDbOptions, createDb, openReadConnection } from "./client";
import { Mutex } from "./mutex";
import { createSyncRepositories, type SyncRepositories } from "./repositories";
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
  const secrets = secretRows(options.secretBox);
  const inMemory = path === ":memory:" || path === "";
  const reader = inMemory ? null : openReadConnection(path, busyTimeoutMs);
  const checkpointer = inMemory || attach ? null : startWalCheckpointer(path, writer.sqlite);
  // The first store's checkpointer copies the log for every connection to the file.
  if (attach) writer.sqlite.pragma("wal_autocheckpoint = 0");
  const clock = options.now ?? Date.now;
  const writeRepos = createSyncRepositories(writer.db, clock);
  const readRepos = reader ? createSyncRepositories(reader.db, clock) : writeRepos;
  const begin = writer.sqlite.prepare("BEGIN IMMEDIATE");
  const commit = writer.sqlite.prepare("COMMIT");
  const rollback = writer.sqlite.prepare("ROLLBACK");
  const mutex = new Mutex();
  const deadline = () => performance.now() + busyRetryMs;
  const lockTimeout = () => busyError();

  /** Runs `op` on the write connection holding the mutex, retrying while the file is locked. */
  async function locked<T>(op: (repos: SyncRepositories) => T): Promise<T> {
    const until = deadline();
    await mutex.acquire(until, lockTimeout);
    try {
      return await retryWhileBusy(() => op(writeRepos), until);
    } finally {
      mutex.release();
    }
  }

  /** A synchronous statement cannot interleave with anything: with the mutex free, run it now. */
  function direct<T>(op: (repos: SyncRepositories) => T, repos: SyncRepositories): Promise<T> {
    try {
      return Promise.resolve(op(repos));
    } catch (error) {
      if (!isBusy(error)) return Promise.reject(error);
      return repos === writeRepos ? locked(op) : retryWhileBusy(() => op(readRepos), deadline());
    }
  }

  const outside: Executor = {
    read: (op) => (reader || !mutex.locked ? direct(op, readRepos) : locked(op)),
    write: (op) => (mutex.locked ? locked(op) : direct(op, writeRepos)),
  };

  function insideTransaction(scope: { open: boolean }): Executor {
    const run = <T>(op: (repos: SyncRepositories) => T): Promise<T> => {
      if (!scope.open) {
        return Promise.reject(new Error("The transaction has ended: call the store instead"));
      }
      try {
        return Promise.resolve(op(writeRepos));
      } catch (error) {
        return Promise.reject(isBusy(error) ? busyError(error) : error);
      }
    };
    return { read: run, write: run };
  }

  function rollbackIfOpen(): void {
    if (writer.sqlite.inTransaction) rollback.run();
  }

  async function transaction<T>(work: (tx: Repositories) => Promise<T>): Promise<T> {
    const until = deadline();
    await mutex.acquire(until, lockTimeout);
    try {
      await retryWhileBusy(() => begin.run(), until);
      const scope = { open: true };
      let result: T;
      try {
        result = await work(bindRepositories(insideTransaction(scope), secrets));
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

  return {
    ...bindRepositories(outside, secrets),
    shared: false,
    transaction,
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

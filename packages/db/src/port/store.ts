import type { Repositories } from "../repositories";

/**
 * The store port: the control plane's records behind one asynchronous interface. SQLite
 * (`createSqliteStore`) is the embedded implementation, PostgreSQL (`createPostgresStore`) the
 * one for a shared database.
 *
 * Outside a transaction every call is its own atomic statement. A read sees everything committed
 * before it started (never a transaction's uncommitted rows).
 */
export interface Store extends Repositories {
  /**
   * Whether other processes (replicas of the control plane) may use this store at the same time:
   * true for PostgreSQL, false for the SQLite file. Over a shared store the control plane runs its
   * background duties under a lease (`leases`) and serialises a sandbox's moves across replicas.
   */
  readonly shared: boolean;
  /** Messages between the replicas of a shared store; absent where there are no others. */
  readonly notices?: StoreNotices;
  /**
   * Runs `work` in one transaction: committed when its promise resolves, rolled back when it
   * rejects. `tx` holds the same repositories, bound to the transaction; use only `tx` inside
   * `work` (the store itself waits for the transaction to end, so awaiting it from `work` never
   * finishes before the busy bound), and await nothing slow there (no network calls): the
   * transaction holds the store's write lock until `work` settles.
   *
   * Transactions of a store are serialised with each other (on every replica of a shared
   * database too): a check followed by a write in one transaction holds, as for a limit.
   *
   * Rejects with `StoreBusyError` when the lock cannot be had within the store's busy bound.
   */
  transaction<T>(work: (tx: Repositories) => Promise<T>): Promise<T>;
  /** Waits for an open transaction to end, then closes the connection(s). */
  close(): Promise<void>;
}

/**
 * Notices between the control planes of one database (PostgreSQL LISTEN/NOTIFY): a replica tells
 * the others what to drop from a cache. Delivery is best effort — a listener whose connection is
 * lost misses what was sent meanwhile, and is told so (`onGap`) when it listens again.
 */
export interface StoreNotices {
  /** Sends `payload` (short text) on `channel` to every listener, this process's too. */
  publish(channel: string, payload: string): Promise<void>;
  /**
   * Calls `onNotice` with every payload sent on `channel` from now on, and `onGap` whenever some
   * may have been missed (the listening connection was lost; it is made again by itself).
   * Resolves once listening; the function it resolves with stops.
   */
  listen(
    channel: string,
    onNotice: (payload: string) => void,
    onGap: () => void,
  ): Promise<() => Promise<void>>;
}

/**
 * The database stayed locked (by another process, or by a long queue of our own writes) past the
 * store's busy bound. Transient: the caller may retry. Matched by `name` (503 STORE_BUSY in the
 * control plane's error map), so code that only sees the error needs no import of this package.
 */
export class StoreBusyError extends Error {
  constructor(message = "The database is busy; try again shortly", options?: ErrorOptions) {
    super(message, options);
    this.name = "StoreBusyError";
  }
}

/**
 * The database cannot be reached: its server is down, restarting, refusing connections or cut the
 * connection. Transient: the store reconnects by itself once the server answers again. Matched by
 * `name` (503 STORE_UNAVAILABLE in the control plane's error map).
 */
export class StoreUnavailableError extends Error {
  constructor(message = "The database is unavailable", options?: ErrorOptions) {
    super(message, options);
    this.name = "StoreUnavailableError";
  }
}

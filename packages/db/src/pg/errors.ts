import { StoreBusyError, StoreUnavailableError } from "../port/store";

/** Socket-level failures of a connection (Node's error codes). */
const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
]);

/**
 * SQLSTATEs that mean "the server is not there for us": admin/crash shutdown, cannot connect now
 * (starting or stopping), too many connections. Class 08 (connection exception) is matched whole.
 */
const UNAVAILABLE_STATES = new Set(["57P01", "57P02", "57P03", "53300"]);

/** node-postgres' own messages for a connection that died or never came. */
const UNAVAILABLE_MESSAGE =
  /Connection terminated|timeout exceeded when trying to connect|is not queryable|connection timeout/i;

/** 55P03: a lock (the store's transaction lock, a row) not had within `lock_timeout`. */
const LOCK_NOT_AVAILABLE = "55P03";

/** The error and its causes (drizzle wraps the driver's error as `cause`). */
function* chain(error: unknown): Generator<{ code?: unknown; message?: unknown }> {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current && typeof current === "object"; depth++) {
    yield current as { code?: unknown; message?: unknown };
    current = (current as { cause?: unknown }).cause;
  }
}

/** True when `error` says the database server is unreachable or dropped the connection. */
export function isConnectionError(error: unknown): boolean {
  for (const e of chain(error)) {
    if (typeof e.code === "string") {
      if (NETWORK_CODES.has(e.code) || UNAVAILABLE_STATES.has(e.code)) return true;
      if (/^08[0-9A-Z]{3}$/.test(e.code)) return true;
    }
    if (typeof e.message === "string" && UNAVAILABLE_MESSAGE.test(e.message)) return true;
  }
  return false;
}

function isLockTimeout(error: unknown): boolean {
  for (const e of chain(error)) if (e.code === LOCK_NOT_AVAILABLE) return true;
  return false;
}

/** A short reason for logs and start-up messages: the driver's message, never the query. */
export function reason(error: unknown): string {
  let last = "unknown error";
  for (const e of chain(error)) {
    // Node's AggregateError (every address refused) has an empty message but a code.
    if (typeof e.message === "string" && e.message !== "") last = e.message;
    else if (typeof e.code === "string") last = e.code;
  }
  return last;
}

/**
 * The store's errors for what PostgreSQL reports: unreachable → `StoreUnavailableError`, a lock
 * not had in time → `StoreBusyError`; anything else as it is.
 */
export function storeError(error: unknown): unknown {
  if (error instanceof StoreUnavailableError || error instanceof StoreBusyError) return error;
  if (isConnectionError(error)) {
    return new StoreUnavailableError(`The database is unavailable: ${reason(error)}`, {
      cause: error,
    });
  }
  if (isLockTimeout(error)) {
    return new StoreBusyError("The database is locked by another transaction; try again shortly", {
      cause: error,
    });
  }
  return error;
}

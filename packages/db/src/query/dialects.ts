import { type AnyColumn, type SQL, type SQLWrapper, sql } from "drizzle-orm";
import type { BetterSQLite3Database } from "drizzle-orm/better-sqlite3";
import type { Dialect, Prepared, QueryDb } from "./query";

/** A label filter's key and value: `key` alone asks only that the key be present. */
function splitLabel(label: string): { key: string; value: string | undefined } {
  const eqAt = label.indexOf("=");
  return eqAt === -1
    ? { key: label, value: undefined }
    : { key: label.slice(0, eqAt), value: label.slice(eqAt + 1) };
}

/** Runs a synchronous statement at once; its result or error as a promise. */
function now<R>(run: () => R): Promise<R> {
  try {
    return Promise.resolve(run());
  } catch (error) {
    return Promise.reject(error);
  }
}

/** SQLite. `clock` is the leases' (epoch ms): one process uses the file, its clock is the clock. */
export function sqliteDialect(clock: () => number): Dialect {
  return {
    likeIgnoringCase: sql`LIKE`,
    greatest: (a, b) => sql`max(${a}, ${b})`,
    typed: (value) => sql`${value}`,
    bytewise: (text) => sql`${text}`,
    hasLabel(column: AnyColumn, label: string) {
      const { key, value } = splitLabel(label);
      const path = `$.${JSON.stringify(key)}`;
      if (value === undefined) return sql`json_type(${column}, ${path}) IS NOT NULL`;
      return sql`json_extract(${column}, ${path}) = ${value}`;
    },
    skipLocked: sql``,
    now: () => sql`${clock()}`,
    rows: async <T>(db: QueryDb, query: SQL) =>
      (db as unknown as BetterSQLite3Database).all<T>(query),
    run: async (db, statement) => {
      (db as unknown as BetterSQLite3Database).run(statement);
    },
    rowsPerInsert: 1,
    // better-sqlite3 is synchronous: take the result at once rather than through Drizzle's promise.
    execute: <R>(statement: Prepared<R>, values: Record<string, unknown>) =>
      now(() => (statement.execute(values) as unknown as { sync(): R }).sync()),
    first: <R>(statement: Prepared<R[]>, values: Record<string, unknown>) =>
      now(() => (statement as unknown as { get(v: unknown): R | undefined }).get(values)),
  };
}

/** The database server's clock in epoch milliseconds: the one clock every replica shares. */
const serverNow = sql`(extract(epoch from clock_timestamp()) * 1000)::bigint`;

/** PostgreSQL. `clock` (epoch ms) replaces the server's clock for the leases (tests). */
export function pgDialect(clock?: () => number): Dialect {
  return {
    likeIgnoringCase: sql`ILIKE`,
    greatest: (a, b) => sql`greatest(${a}, ${b})`,
    typed: (value, type) => sql`${value}::${sql.raw(type)}`,
    bytewise: (text: SQLWrapper | SQL) => sql`(${text} collate "C")`,
    hasLabel(column: AnyColumn, label: string) {
      const { key, value } = splitLabel(label);
      if (value === undefined) return sql`jsonb_exists(${column}, ${key})`;
      return sql`(${column} ->> ${key}::text) = ${value}`;
    },
    skipLocked: sql`for update skip locked`,
    now: () => (clock ? sql`${Math.round(clock())}::bigint` : serverNow),
    rows: async <T>(db: QueryDb, query: SQL) => (await db.execute(query)).rows as T[],
    run: async (db, statement) => {
      await db.execute(statement);
    },
    // A dozen or so parameters a row: far below PostgreSQL's limit of 65535 a statement.
    rowsPerInsert: 500,
    execute: (statement, values) => statement.execute(values),
    first: async (statement, values) => (await statement.execute(values))[0],
  };
}

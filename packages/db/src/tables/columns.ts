import * as p from "drizzle-orm/pg-core";
import * as s from "drizzle-orm/sqlite-core";

/*
 * Each table is defined twice, once per dialect, side by side (Drizzle has no dialect-free table
 * builder): the same name, columns and indexes, and — checked at compile time by `SameRow` — the
 * same row type, which is the port's. Change both together, then generate a migration for each
 * (`npm run generate` and `npm run generate:pg`).
 *
 * Times are Unix epoch milliseconds: `integer` on SQLite, `bigint` read as a JS number on
 * PostgreSQL. JSON columns are `jsonb` on PostgreSQL, except an event's `body`, kept as `json`
 * so its text (key order) comes back as it was stored.
 */
export const ms = {
  sqlite: (name: string) => s.integer(name),
  pg: (name: string) => p.bigint(name, { mode: "number" }),
};

/** A JSON value of type `T`: text on SQLite, `jsonb` on PostgreSQL. */
export const json = {
  sqlite: <T>(name: string) => s.text(name, { mode: "json" }).$type<T>(),
  pg: <T>(name: string) => p.jsonb(name).$type<T>(),
};

/**
 * Compiles only when the PostgreSQL table infers exactly the row of its SQLite twin (each row is
 * assignable to the other).
 */
export type SameRow<
  Pg extends { $inferSelect: Sqlite["$inferSelect"] },
  Sqlite extends { $inferSelect: Pg["$inferSelect"] },
> = [Pg, Sqlite];

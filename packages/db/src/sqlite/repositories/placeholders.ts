import { type Placeholder, sql } from "drizzle-orm";

/** Values of a prepared insert: one named placeholder per column, bound from the row at run. */
export function placeholders<K extends string>(columns: readonly K[]): Record<K, Placeholder<K>> {
  return Object.fromEntries(columns.map((c) => [c, sql.placeholder(c)])) as Record<
    K,
    Placeholder<K>
  >;
}

import { type AnyColumn, and, type SQL, type SQLWrapper } from "drizzle-orm";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import { keyset, type Page, type PageRequest, type SortDirection, toPage } from "../paging";
import type { Db } from "./client";

/** The keyset a listing pages by: a sort key (column or expression) and the id breaking ties. */
export interface PageKey<Row> {
  sort: AnyColumn | SQLWrapper;
  id: AnyColumn;
  direction: SortDirection;
  /** The row's value of `sort`, written into the next page's cursor. */
  value: (row: Row) => number | string;
  /** The type of `sort`'s values (a cursor of the other type is refused); number by default. */
  valueType?: "number" | "string";
}

/**
 * One page of `table`'s rows matching `filter`, in keyset order: every listing's query (fetch
 * `limit + 1` past the cursor, then cut) in one place.
 */
export function selectPage<T extends SQLiteTable & { $inferSelect: { id: string } }>(
  db: Db,
  table: T,
  filter: SQL | undefined,
  key: PageKey<T["$inferSelect"]>,
  page: PageRequest,
): Page<T["$inferSelect"]> {
  const { where, orderBy } = keyset(key.sort, key.id, key.direction, page.pageId, key.valueType);
  // `select().from(table)` returns the table's rows; drizzle cannot infer that for a generic table.
  const rows = db
    .select()
    .from(table as SQLiteTable)
    .where(and(filter, where))
    .orderBy(...orderBy)
    .limit(page.limit + 1)
    .all() as T["$inferSelect"][];
  return toPage(rows, page.limit, key.value);
}

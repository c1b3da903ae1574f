import { type AnyColumn, asc, desc, type SQL, type SQLWrapper, sql } from "drizzle-orm";

export type SortDirection = "asc" | "desc";

export interface Page<T> {
  items: T[];
  /** Opaque cursor for the next page, or null on the last page. */
  nextPageId: string | null;
}

export interface PageRequest {
  limit: number;
  pageId?: string | undefined;
}

/** Thrown for a page_id that this server did not produce. */
export class InvalidPageIdError extends Error {
  constructor() {
    super("page_id is not valid");
    this.name = "InvalidPageIdError";
  }
}

interface Cursor {
  /** The sort value of the last row: a time, or a text (a title). */
  v: number | string;
  id: string;
}

export function encodeCursor(cursor: Cursor): string {
  return Buffer.from(JSON.stringify([cursor.v, cursor.id])).toString("base64url");
}

export function decodeCursor(pageId: string): Cursor {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(pageId, "base64url").toString("utf8"));
    if (
      Array.isArray(parsed) &&
      parsed.length === 2 &&
      (typeof parsed[0] === "number" || typeof parsed[0] === "string") &&
      typeof parsed[1] === "string"
    ) {
      return { v: parsed[0], id: parsed[1] };
    }
  } catch {
    // fall through
  }
  throw new InvalidPageIdError();
}

/**
 * Keyset paging over (sortColumn, id): stable under concurrent inserts and deletes, and as cheap
 * on page 500 as on page 1 given an index ending in (sortColumn, id). The sort key may be an
 * expression (`coalesce(title, '')`); the cursor's value must then have the expression's type.
 */
export function keyset(
  sortColumn: AnyColumn | SQLWrapper,
  idColumn: AnyColumn,
  direction: SortDirection,
  pageId: string | undefined,
  valueType: "number" | "string" = "number",
): { where: SQL | undefined; orderBy: SQL[] } {
  const order = direction === "asc" ? asc : desc;
  let where: SQL | undefined;
  if (pageId) {
    const cursor = decodeCursor(pageId);
    // A cursor of another sort order (a title where a time belongs) is not this query's.
    if (typeof cursor.v !== valueType) throw new InvalidPageIdError();
    // A row-value comparison, so SQLite seeks the index range instead of scanning to the cursor.
    const op = sql.raw(direction === "asc" ? ">" : "<");
    where = sql`(${sortColumn}, ${idColumn}) ${op} (${cursor.v}, ${cursor.id})`;
  }
  return { where, orderBy: [order(sortColumn), order(idColumn)] };
}

/** Turns `limit + 1` fetched rows into a page. */
export function toPage<T extends { id: string }>(
  rows: T[],
  limit: number,
  sortValue: (row: T) => number | string,
): Page<T> {
  if (rows.length <= limit) return { items: rows, nextPageId: null };
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return {
    items,
    nextPageId: last ? encodeCursor({ v: sortValue(last), id: last.id }) : null,
  };
}

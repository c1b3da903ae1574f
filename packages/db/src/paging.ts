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

/** A cursor: the sort value of the last row (a time, or a text such as a title) and its id. */
type Cursor = [value: number | string, id: string];

function encodeCursor(cursor: Cursor): string {
  return Buffer.from(JSON.stringify(cursor)).toString("base64url");
}

/** The cursor of `pageId`, if this server produced it for a sort of `valueType` values. */
function decodeCursor(pageId: string, valueType: "number" | "string"): Cursor {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(pageId, "base64url").toString("utf8"));
  } catch {
    throw new InvalidPageIdError();
  }
  // A cursor of another sort order (a title where a time belongs) is not this query's.
  const [value, id, ...rest] = Array.isArray(parsed) ? parsed : [];
  if (typeof value !== valueType || typeof id !== "string" || rest.length > 0) {
    throw new InvalidPageIdError();
  }
  return [value, id];
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
    const [value, id] = decodeCursor(pageId, valueType);
    // A row-value comparison, so SQLite seeks the index range instead of scanning to the cursor.
    const op = sql.raw(direction === "asc" ? ">" : "<");
    where = sql`(${sortColumn}, ${idColumn}) ${op} (${value}, ${id})`;
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
  return { items, nextPageId: last ? encodeCursor([sortValue(last), last.id]) : null };
}

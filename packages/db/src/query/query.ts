import {
  type AnyColumn,
  and,
  count,
  eq,
  getTableColumns,
  type Placeholder,
  type SQL,
  type SQLWrapper,
  sql,
} from "drizzle-orm";
import type { NodePgDatabase } from "drizzle-orm/node-postgres";
import type { PgTable } from "drizzle-orm/pg-core";
import { keyset, type Page, type PageRequest, type SortDirection, toPage } from "../paging";
import type * as tables from "../tables/pg";

/**
 * Drizzle over one connection, as the repositories see it. They are written once, in the types of
 * Drizzle's pg dialect: SQLite's query builders have the same methods with the same results when
 * awaited, and its tables infer the same rows (`tables/`), so the SQLite store hands in
 * its own under these types (docs/adr/0032-one-query-layer.md). Queries run by being awaited;
 * what the two dialects spell differently is asked of `Dialect`.
 */
export type QueryDb = NodePgDatabase<typeof tables>;
export type Tables = typeof tables;

/** What SQLite and PostgreSQL spell differently; nothing else in a query may differ. */
export interface Dialect {
  /** Case-insensitive (ASCII) `LIKE`: SQLite's own `LIKE`, PostgreSQL's `ILIKE`. */
  likeIgnoringCase: SQL;
  /** The larger of two values: SQLite's two-argument `max`, PostgreSQL's `greatest`. */
  greatest(a: SQLWrapper | SQL, b: SQLWrapper | SQL): SQL;
  /** A parameter of a declared type, where PostgreSQL cannot infer one (in `coalesce`). */
  typed(value: unknown, type: "bigint" | "text"): SQL;
  /** Text compared byte by byte, as SQLite does by default (PostgreSQL: collation "C"). */
  bytewise(text: SQLWrapper | SQL): SQL;
  /** A label filter on a JSON object column: `key` (present) or `key=value`. */
  hasLabel(column: AnyColumn, label: string): SQL;
  /** The lock a claim takes on the rows it looks at: none on SQLite (one writer at a time). */
  skipLocked: SQL;
  /** The leases' clock in epoch milliseconds: the process's on SQLite, the server's on PostgreSQL. */
  now(): SQL;
  /** The rows of a statement written in SQL. */
  rows<T>(db: QueryDb, query: SQL): Promise<T[]>;
  /** Runs a statement written in SQL that answers no rows. */
  run(db: QueryDb, statement: SQL): Promise<void>;
  /**
   * Rows a batch insert sends per statement: 1 on SQLite, which runs a prepared single-row insert
   * per row (compiling a multi-row statement costs more than running it); a few hundred on
   * PostgreSQL, where each statement is a round trip.
   */
  rowsPerInsert: number;
  /** Runs a prepared statement (SQLite: at once, synchronously, without Drizzle's promise). */
  execute<R>(statement: Prepared<R>, values: Record<string, unknown>): Promise<R>;
  /** Its first row, reading no further (SQLite steps once). */
  first<R>(statement: Prepared<R[]>, values: Record<string, unknown>): Promise<R | undefined>;
}

/** A statement Drizzle prepared, with `sql.placeholder`s for `values`. */
export interface Prepared<R> {
  execute(values: Record<string, unknown>): Promise<R>;
}

/** A prepared statement of one connection, run with its placeholders' values. */
export interface Statement<R> {
  all(values: Record<string, unknown>): Promise<R>;
  first(
    values: Record<string, unknown>,
  ): Promise<R extends (infer Row)[] ? Row | undefined : never>;
}

/** One connection's queries: Drizzle, its tables, its dialect and its prepared statements. */
export interface Query {
  db: QueryDb;
  t: Tables;
  dialect: Dialect;
  /**
   * The statement `build` makes, built and prepared once per connection: for the hot paths,
   * whose compilation would otherwise cost more than running them. `name` names it on PostgreSQL.
   */
  prepared<R>(name: string, build: (q: Query) => Prepared<R>): Statement<R>;
}

export function createQuery(db: QueryDb, t: Tables, dialect: Dialect): Query {
  const statements = new Map<string, unknown>();
  const q: Query = {
    db,
    t,
    dialect,
    prepared<R>(name: string, build: (q: Query) => Prepared<R>): Statement<R> {
      let statement = statements.get(name) as Statement<R> | undefined;
      if (statement === undefined) {
        const prepared = build(q);
        statement = {
          all: (values) => dialect.execute(prepared, values),
          first: (values) => dialect.first(prepared as never, values) as never,
        };
        statements.set(name, statement);
      }
      return statement;
    },
  };
  return q;
}

/**
 * How a repository call reaches the database. SQLite runs reads on its read connection and writes
 * behind its write lock; PostgreSQL runs both on the pool; inside a transaction all three run on
 * the transaction's connection.
 */
export interface Executor {
  read<T>(op: (q: Query) => Promise<T>): Promise<T>;
  write<T>(op: (q: Query) => Promise<T>): Promise<T>;
  /** Several writes that stand or fall together: a transaction of their own, or the open one. */
  atomic<T>(op: (q: Query) => Promise<T>): Promise<T>;
}

/**
 * The executor of one open transaction: every call runs on the transaction's connection (`run`)
 * and is refused once the transaction ended (a forgotten `await` is caught, not committed).
 */
export function transactionExecutor(
  scope: { open: boolean },
  run: <T>(op: (q: Query) => Promise<T>) => Promise<T>,
): Executor {
  const guarded = <T>(op: (q: Query) => Promise<T>): Promise<T> =>
    scope.open
      ? run(op)
      : Promise.reject(new Error("The transaction has ended: call the store instead"));
  return { read: guarded, write: guarded, atomic: guarded };
}

/** The keyset a listing pages by: a sort key (column or expression) and the id breaking ties. */
export interface PageKey<Row> {
  sort: AnyColumn | SQLWrapper;
  direction: SortDirection;
  /** The row's value of `sort` for the next page's cursor: needed only where `sort` is no column. */
  value?: (row: Row) => number | string;
  /** The type of `sort`'s values (a cursor of the other type is refused); number by default. */
  valueType?: "number" | "string";
}

type Paged = PgTable & { id: AnyColumn; $inferSelect: { id: string } };

/**
 * One page of `table`'s rows matching `filter`, in keyset order: every listing's query (fetch
 * `limit + 1` past the cursor, then cut) in one place.
 */
export async function selectPage<T extends Paged>(
  db: QueryDb,
  table: T,
  filter: SQL | undefined,
  key: PageKey<T["$inferSelect"]>,
  page: PageRequest,
): Promise<Page<T["$inferSelect"]>> {
  const { where, orderBy } = keyset(key.sort, table.id, key.direction, page.pageId, key.valueType);
  // `select().from(table)` returns the table's rows; drizzle cannot infer that for a generic table.
  const rows = (await db
    .select()
    .from(table as PgTable)
    .where(and(filter, where))
    .orderBy(...orderBy)
    .limit(page.limit + 1)) as T["$inferSelect"][];
  return toPage(rows, page.limit, key.value ?? columnValue(table, key.sort));
}

/** A row's value of `column`, one of `table`'s, found under the column's key. */
function columnValue(table: PgTable, column: AnyColumn | SQLWrapper) {
  const entry = Object.entries(getTableColumns(table)).find(([, c]) => c === column);
  if (entry === undefined) throw new Error("a page key sorting by an expression needs its value");
  const [name] = entry;
  return (row: Record<string, unknown>) => row[name] as number | string;
}

/** The row of `table` with `id`: prepared once per connection (hot paths read by id), as `name`. */
export function selectById<T extends Paged>(
  q: Query,
  name: string,
  table: (t: Tables) => T,
  id: string,
): Promise<T["$inferSelect"] | undefined> {
  const byId = q.prepared(name, ({ db, t }) =>
    db
      .select()
      .from(table(t) as PgTable)
      .where(eq(table(t).id, sql.placeholder("id")))
      .prepare(name),
  );
  return byId.first({ id }) as Promise<T["$inferSelect"] | undefined>;
}

/** The first of a query's rows (undefined when it has none). */
export async function first<R>(rows: PromiseLike<R[]>): Promise<R | undefined> {
  return (await rows)[0];
}

/** How many rows of `table` match `filter`. */
export async function countWhere(db: QueryDb, table: PgTable, filter: SQL | undefined) {
  const [row] = await db.select({ n: count() }).from(table).where(filter);
  return row?.n ?? 0;
}

/**
 * Values of a prepared insert: a named placeholder for each of `table`'s columns but `except`
 * (columns the rows leave to their defaults), bound from the row at run.
 */
export function placeholders<T extends PgTable, X extends keyof T["$inferInsert"] = never>(
  table: T,
  ...except: X[]
) {
  const names = Object.keys(getTableColumns(table)).filter((c) => !except.includes(c as X));
  return Object.fromEntries(names.map((c) => [c, sql.placeholder(c)])) as Record<
    Exclude<keyof T["$inferInsert"], X>,
    Placeholder
  >;
}

/** `%text%` for a `LIKE … ESCAPE '\'`, with the pattern characters in `text` taken literally. */
export function containing(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

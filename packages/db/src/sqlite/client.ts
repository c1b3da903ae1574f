import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { type BetterSQLite3Database, drizzle } from "drizzle-orm/better-sqlite3";
import { migrate } from "drizzle-orm/better-sqlite3/migrator";
import * as schema from "../schema";

export type Db = BetterSQLite3Database<typeof schema>;

export interface DbHandle {
  db: Db;
  /** The raw connection, for pragmas, transactions and closing. */
  sqlite: Database.Database;
  close(): void;
}

export interface CreateDbOptions {
  /** Folder holding drizzle-kit's migrations; defaults to this package's `drizzle/`. */
  migrationsFolder?: string;
  /** How long a statement waits for a lock held by another connection before SQLITE_BUSY. */
  busyTimeoutMs?: number;
  /** Another connection to a database already opened (and migrated) elsewhere: no migrations. */
  attach?: boolean;
}

/** Compiled statements kept per connection: enough for every query shape the repositories use. */
const STATEMENT_CACHE_SIZE = 512;

/**
 * Drizzle compiles every statement anew on each run; compiling costs more than running most of
 * ours. Keeps the compiled statements by SQL text (least recently used dropped first). Drizzle
 * switches a statement to raw rows when it maps columns itself, so a reused reader starts
 * without. better-sqlite3's own internal calls (pragmas) pass more arguments and are not cached.
 */
function cacheStatements(sqlite: Database.Database): void {
  const prepare = sqlite.prepare;
  const cache = new Map<string, Database.Statement>();
  sqlite.prepare = function cachedPrepare(this: Database.Database, ...args: unknown[]) {
    const [source] = args;
    if (args.length !== 1 || typeof source !== "string") {
      return (prepare as (...a: unknown[]) => Database.Statement).apply(this, args);
    }
    let statement = cache.get(source);
    if (statement) {
      cache.delete(source);
      if (statement.reader) statement.raw(false);
    } else {
      statement = prepare.call(this, source);
      if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value as string);
    }
    cache.set(source, statement);
    return statement;
  } as typeof sqlite.prepare;
}

export const defaultMigrationsFolder = fileURLToPath(new URL("../../drizzle", import.meta.url));

/** Opens (creating if needed) the SQLite database at `path` (or `:memory:`) and migrates it. */
export function createDb(path: string, options: CreateDbOptions = {}): DbHandle {
  if (path !== ":memory:" && !options.attach) mkdirSync(dirname(path), { recursive: true });
  const handle = open(path, options.attach === true, options.busyTimeoutMs ?? 5000);
  handle.sqlite.pragma("journal_mode = WAL");
  handle.sqlite.pragma("synchronous = NORMAL");
  handle.sqlite.pragma("foreign_keys = ON");
  if (!options.attach) {
    migrate(handle.db, { migrationsFolder: options.migrationsFolder ?? defaultMigrationsFolder });
  }
  return handle;
}

/**
 * A second connection to an existing (already migrated, WAL) database file that only reads
 * (`query_only`): in WAL mode it reads the last committed state while another connection writes.
 */
export function openReadConnection(path: string, busyTimeoutMs: number): DbHandle {
  const handle = open(path, true, busyTimeoutMs);
  handle.sqlite.pragma("query_only = ON");
  return handle;
}

function open(path: string, fileMustExist: boolean, busyTimeoutMs: number): DbHandle {
  const sqlite = new Database(path, { fileMustExist });
  sqlite.pragma(`busy_timeout = ${busyTimeoutMs}`);
  cacheStatements(sqlite);
  return {
    db: drizzle(sqlite, { schema }),
    sqlite,
    close: () => {
      if (sqlite.open) sqlite.close();
    },
  };
}

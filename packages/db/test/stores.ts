import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { inject } from "vitest";
import { createPostgresStore, type PostgresStoreOptions } from "../src/pg/pg-store";
import type { Store } from "../src/port/store";
import { createSecretBox, type SecretBox } from "../src/secrets/secret-box";
import { createSqliteStore } from "../src/sqlite/sqlite-store";

export interface OpenOptions {
  secretBox?: SecretBox;
  busyRetryMs?: number;
  /** The leases' clock (epoch ms). */
  now?: () => number;
}

/** A fresh, empty, migrated store, and a way to look at what it wrote. */
export interface OpenedStore {
  store: Store;
  /** Runs a query on a separate connection (what is really stored). `?` placeholders. */
  raw(query: string, params?: unknown[]): Promise<Record<string, unknown>[]>;
  /** Opens the same database again (another store, e.g. after a restart). */
  reopen(options?: OpenOptions): Promise<Store>;
}

/** One implementation of the store port, as the contract tests use it. */
export interface StoreAdapter {
  name: "sqlite" | "postgres";
  open(options?: OpenOptions): Promise<OpenedStore>;
  /** Closes every store opened since the last cleanup and removes its database. */
  cleanup(): Promise<void>;
}

/** One key for every store a test opens: a database refuses a second key (its key check). */
const testKey = randomBytes(32);
const box = (options: OpenOptions) => options.secretBox ?? createSecretBox(testKey);

function sqliteAdapter(): StoreAdapter {
  const dirs: string[] = [];
  const stores: Store[] = [];
  return {
    name: "sqlite",
    async open(options = {}) {
      const dir = mkdtempSync(path.join(tmpdir(), "store-contract-"));
      dirs.push(dir);
      const file = path.join(dir, "store.db");
      const openStore = (o: OpenOptions) => {
        const store = createSqliteStore(file, {
          secretBox: box(o),
          ...(o.busyRetryMs ? { busyRetryMs: o.busyRetryMs } : {}),
          ...(o.now ? { now: o.now } : {}),
        });
        stores.push(store);
        return store;
      };
      return {
        store: openStore(options),
        async raw(query, params = []) {
          const db = new Database(file, { readonly: true });
          try {
            return db.prepare(query).all(...params) as Record<string, unknown>[];
          } finally {
            db.close();
          }
        },
        reopen: async (o = {}) => openStore(o),
      };
    },
    async cleanup() {
      for (const store of stores.splice(0)) await store.close();
      for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The URL of another database on the same server. */
export function databaseUrl(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/** `?` placeholders → `$1, $2, …`. */
const numbered = (query: string) => {
  let n = 0;
  return query.replace(/\?/g, () => `$${++n}`);
};

function postgresAdapter(url: string): StoreAdapter {
  const databases: string[] = [];
  const stores: Store[] = [];
  const admin = () => new pg.Client({ connectionString: url });
  return {
    name: "postgres",
    async open(options = {}) {
      const name = `store_${randomBytes(6).toString("hex")}`;
      const client = admin();
      await client.connect();
      try {
        await client.query(`CREATE DATABASE ${name}`);
      } finally {
        await client.end();
      }
      databases.push(name);
      const target = databaseUrl(url, name);
      const openStore = async (o: OpenOptions) => {
        const settings: PostgresStoreOptions = { secretBox: box(o) };
        if (o.busyRetryMs) settings.busyRetryMs = o.busyRetryMs;
        if (o.now) settings.now = o.now;
        const store = await createPostgresStore(target, settings);
        stores.push(store);
        return store;
      };
      return {
        store: await openStore(options),
        async raw(query, params = []) {
          const c = new pg.Client({ connectionString: target });
          await c.connect();
          try {
            return (await c.query(numbered(query), params)).rows;
          } finally {
            await c.end();
          }
        },
        reopen: openStore,
      };
    },
    async cleanup() {
      for (const store of stores.splice(0)) await store.close();
      if (databases.length === 0) return;
      const client = admin();
      await client.connect();
      try {
        for (const name of databases.splice(0)) {
          await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        }
      } finally {
        await client.end();
      }
    },
  };
}

/** Stands in for PostgreSQL when CI requires it and there is none: every open fails. */
function missingPostgres(): StoreAdapter {
  return {
    name: "postgres",
    open: () =>
      Promise.reject(
        new Error("CI=true requires PostgreSQL: set TEST_DATABASE_URL or install postgresql"),
      ),
    cleanup: async () => undefined,
  };
}

/** Whether this run has PostgreSQL (TEST_DATABASE_URL or the cluster CI started). */
export function postgresUrl(): string {
  return inject("testDatabaseUrl");
}

/**
 * The adapters every store contract test runs against: SQLite always; PostgreSQL when this run
 * has one, and as a failing stand-in when CI=true has none (never silently left out there).
 */
export function storeAdapters(): StoreAdapter[] {
  const url = postgresUrl();
  if (url) return [sqliteAdapter(), postgresAdapter(url)];
  return inject("pgRequired") ? [sqliteAdapter(), missingPostgres()] : [sqliteAdapter()];
}

import { rmSync } from "node:fs";
import path from "node:path";
import {
  createPostgresStore,
  createSecretBox,
  createSqliteStore,
  type SecretBox,
  SecretsKeyMismatchError,
  SecretUnreadableError,
  type Store,
} from "@sandbox-server/db";
import type { Logger } from "pino";
import { ConfigError } from "./config-error";
import { resolveSecretsKey, SECRETS_KEY_FILE, type SecretsKey } from "./secrets-key";

export interface OpenStoreOptions {
  dataDir: string;
  /** SECRETS_KEY; when absent the key file in `dataDir` is used (and created on the first start). */
  secretsKey?: Uint8Array | undefined;
  migrationsFolder?: string | undefined;
  /** DATABASE_URL: PostgreSQL instead of the SQLite file in `dataDir`. */
  databaseUrl?: string | undefined;
  pgMigrationsFolder?: string | undefined;
  log: Logger;
}

/** Where the store is, as another thread of this process opens it again (`openAttachedStore`). */
export interface StoreLocation {
  /** DATABASE_URL, or else the SQLite file. */
  databaseUrl: string | null;
  sqliteFile: string;
  secretsKey: Uint8Array;
}

export interface OpenedStore {
  store: Store;
  location: StoreLocation;
}

/**
 * Opens the store with the secrets key: PostgreSQL at `databaseUrl` when given (migrated on open),
 * else the SQLite file in the data directory. A key that does not decrypt the stored secrets,
 * stored secrets that do not decrypt, or a database that cannot be reached stop the start with
 * one line.
 */
export async function openStore(options: OpenStoreOptions): Promise<OpenedStore> {
  const secrets = resolveSecretsKey(options.secretsKey, options.dataDir);
  const secretBox = createSecretBox(secrets.key);
  const sqliteFile = path.join(options.dataDir, "sandbox-server.db");
  try {
    const store = options.databaseUrl
      ? await openPostgres(options.databaseUrl, secretBox, options)
      : createSqliteStore(sqliteFile, {
          secretBox,
          ...(options.migrationsFolder ? { migrationsFolder: options.migrationsFolder } : {}),
        });
    if (secrets.created) {
      options.log.info(
        { file: secrets.file },
        `secrets key written to ${secrets.file}; back it up with the database: without it stored secrets are lost`,
      );
    }
    const databaseUrl = options.databaseUrl ?? null;
    return { store, location: { databaseUrl, sqliteFile, secretsKey: secrets.key } };
  } catch (error) {
    // A key just generated for a database written with another key has encrypted nothing (the
    // store wrote nothing): removed, so the next start tells the same story.
    if (error instanceof SecretsKeyMismatchError && secrets.created && secrets.file) {
      rmSync(secrets.file, { force: true });
    }
    throw startupError(error, secrets) ?? error;
  }
}

/** How many connections the ingest worker's PostgreSQL pool holds (it writes one batch at a time). */
const ATTACHED_PG_CONNECTIONS = 2;

/** The store `openStore` opened, opened again (from another thread): no migrations, no sealing. */
export function openAttachedStore(location: StoreLocation): Promise<Store> {
  const secretBox = createSecretBox(location.secretsKey);
  if (location.databaseUrl) {
    return createPostgresStore(location.databaseUrl, {
      secretBox,
      attach: true,
      maxConnections: ATTACHED_PG_CONNECTIONS,
    });
  }
  return Promise.resolve(createSqliteStore(location.sqliteFile, { secretBox, attach: true }));
}

async function openPostgres(
  url: string,
  secretBox: SecretBox,
  options: OpenStoreOptions,
): Promise<Store> {
  try {
    const store = await createPostgresStore(url, {
      secretBox,
      ...(options.pgMigrationsFolder ? { migrationsFolder: options.pgMigrationsFolder } : {}),
    });
    options.log.info({ database: redactUrl(url) }, "metadata in PostgreSQL");
    return store;
  } catch (error) {
    if (error instanceof Error && error.name === "StoreUnavailableError") {
      throw new ConfigError(
        `DATABASE_URL: cannot use the database at ${redactUrl(url)}: ${error.message.replace(/^cannot connect to the database: /, "")}`,
      );
    }
    throw error;
  }
}

/** The URL without its password (and query): what start-up messages and logs may show. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    const user = u.username ? `${decodeURIComponent(u.username)}@` : "";
    return `${u.protocol}//${user}${u.host}${u.pathname}`;
  } catch {
    return "(unparseable URL)";
  }
}

function startupError(error: unknown, secrets: SecretsKey): ConfigError | null {
  if (error instanceof SecretsKeyMismatchError) {
    const source = secrets.file
      ? secrets.created
        ? `the key file ${secrets.file} was missing and a new key was generated`
        : `the key is the one in ${secrets.file}`
      : "the key is SECRETS_KEY";
    return new ConfigError(
      `${error.message} (${source}); start with the key this database was written with (SECRETS_KEY or DATA_DIR/${SECRETS_KEY_FILE})`,
    );
  }
  if (error instanceof SecretUnreadableError) {
    return new ConfigError(
      `${error.message}; restore the database from a backup or delete those rows`,
    );
  }
  return null;
}

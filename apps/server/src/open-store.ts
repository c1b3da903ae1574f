import { rmSync } from "node:fs";
import path from "node:path";
import {
  createSecretBox,
  createSqliteStore,
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
  log: Logger;
}

/**
 * Opens the SQLite store in the data directory with the secrets key. A key that does not decrypt
 * the stored secrets, or stored secrets that do not decrypt, stop the start with one line.
 */
export function openStore(options: OpenStoreOptions): Store {
  const secrets = resolveSecretsKey(options.secretsKey, options.dataDir);
  try {
    const store = createSqliteStore(path.join(options.dataDir, "sandbox-server.db"), {
      secretBox: createSecretBox(secrets.key),
      ...(options.migrationsFolder ? { migrationsFolder: options.migrationsFolder } : {}),
    });
    if (secrets.created) {
      options.log.info(
        { file: secrets.file },
        `secrets key written to ${secrets.file}; back it up with the database: without it stored secrets are lost`,
      );
    }
    return store;
  } catch (error) {
    // A key just generated for a database written with another key has encrypted nothing (the
    // store wrote nothing): removed, so the next start tells the same story.
    if (error instanceof SecretsKeyMismatchError && secrets.created && secrets.file) {
      rmSync(secrets.file, { force: true });
    }
    throw startupError(error, secrets) ?? error;
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

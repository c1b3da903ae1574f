export * from "./paging";
export {
  createPostgresStore,
  type PostgresStoreOptions,
} from "./pg/pg-store";
export { completeSandbox } from "./port/new-sandbox";
export { NO_LIFETIME } from "./port/row-defaults";
export type * from "./port/rows";
export * from "./port/store";
export type * from "./repositories";
export * as schema from "./schema";
export { NO_PORT_ACCESS } from "./schema";
export {
  createSecretBox,
  isSealed,
  SEALED_PREFIX,
  SECRET_KEY_BYTES,
  type SecretBox,
  SecretsKeyMismatchError,
  SecretUnreadableError,
} from "./secrets/secret-box";
export * from "./sqlite/client";
export {
  createSqliteStore,
  DEFAULT_BUSY_RETRY_MS,
  DEFAULT_BUSY_TIMEOUT_MS,
  type SqliteStoreOptions,
} from "./sqlite/sqlite-store";

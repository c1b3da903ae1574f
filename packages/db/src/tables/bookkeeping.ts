import * as p from "drizzle-orm/pg-core";
import * as s from "drizzle-orm/sqlite-core";
import { ms, type SameRow } from "./columns";
import { userRef } from "./users";

/**
 * `Idempotency-Key`s of creates, per user, kept 24 h. A row is claimed (`in_progress`) before the
 * create runs and `completed` with the response it answered; a failed create removes its row. The
 * response (which may hold a secret shown once: an API key, a webhook secret, a session key) is
 * sealed by the store like every other secret; `request_hash` is sha256 of the procedure path and
 * the canonical input, so the same key with another body is told apart.
 */
export const idempotencyKeys = s.sqliteTable(
  "idempotency_keys",
  {
    id: s.text("id").primaryKey(),
    userId: userRef.sqlite("user_id"),
    key: s.text("key").notNull(),
    requestHash: s.text("request_hash").notNull(),
    /** in_progress | completed */
    status: s.text("status").notNull(),
    responseStatus: s.integer("response_status"),
    /** The response body as JSON, sealed (`enc:v1:…`); null while in progress. */
    responseBody: s.text("response_body"),
    createdAt: ms.sqlite("created_at").notNull(),
  },
  (t) => [
    s.uniqueIndex("idempotency_keys_user_key_idx").on(t.userId, t.key),
    s.index("idempotency_keys_created_idx").on(t.createdAt),
  ],
);

export const pgIdempotencyKeys = p.pgTable(
  "idempotency_keys",
  {
    id: p.text("id").primaryKey(),
    userId: userRef.pg("user_id"),
    key: p.text("key").notNull(),
    requestHash: p.text("request_hash").notNull(),
    status: p.text("status").notNull(),
    responseStatus: p.bigint("response_status", { mode: "number" }),
    responseBody: p.text("response_body"),
    createdAt: ms.pg("created_at").notNull(),
  },
  (t) => [
    p.uniqueIndex("idempotency_keys_user_key_idx").on(t.userId, t.key),
    p.index("idempotency_keys_created_idx").on(t.createdAt),
  ],
);

export type IdempotencyKeysRowsMatch = SameRow<typeof pgIdempotencyKeys, typeof idempotencyKeys>;

/**
 * Leases: a name (a background duty such as `duties`, a replica's heartbeat `replica:<id>`, a
 * sandbox's lifecycle lock `sandbox:<id>`) held by one control-plane replica (`holder`, a random id
 * per process) until `expires_at`; the holder renews it before then, anyone may take it after.
 */
export const leases = s.sqliteTable("leases", {
  name: s.text("name").primaryKey(),
  holder: s.text("holder").notNull(),
  /** When it was taken by this holder (renewals keep it). */
  acquiredAt: s.integer("acquired_at").notNull(),
  expiresAt: s.integer("expires_at").notNull(),
});

export const pgLeases = p.pgTable("leases", {
  name: p.text("name").primaryKey(),
  holder: p.text("holder").notNull(),
  acquiredAt: ms.pg("acquired_at").notNull(),
  expiresAt: ms.pg("expires_at").notNull(),
});

export type LeasesRowsMatch = SameRow<typeof pgLeases, typeof leases>;

/**
 * The secrets key the database was first opened with, as a check value (an HMAC of a constant
 * under the key, never the key): a later start with another key is refused, however few secrets
 * are stored yet. One row, written by the first start (insert-if-absent).
 */
export const secretsKeyCheck = s.sqliteTable("secrets_key_check", {
  id: s.text("id").primaryKey(),
  checkValue: s.text("check_value").notNull(),
  createdAt: ms.sqlite("created_at").notNull(),
});

export const pgSecretsKeyCheck = p.pgTable("secrets_key_check", {
  id: p.text("id").primaryKey(),
  checkValue: p.text("check_value").notNull(),
  createdAt: ms.pg("created_at").notNull(),
});

export type SecretsKeyCheckRowsMatch = SameRow<typeof pgSecretsKeyCheck, typeof secretsKeyCheck>;

import * as p from "drizzle-orm/pg-core";
import * as s from "drizzle-orm/sqlite-core";
import { ms, type SameRow } from "./columns";

export const users = s.sqliteTable("users", {
  id: s.text("id").primaryKey(),
  name: s.text("name").notNull(),
  isAdmin: s.integer("is_admin", { mode: "boolean" }).notNull().default(false),
  createdAt: ms.sqlite("created_at").notNull(),
  /** Set while an admin has disabled the user: every key is refused. */
  disabledAt: s.integer("disabled_at"),
  /**
   * Set once an admin deleted the user. The row stays as a tombstone, so the user's archived
   * conversations keep their owner; the user's keys are gone and the API answers 404 for them.
   */
  deletedAt: s.integer("deleted_at"),
});

export const pgUsers = p.pgTable("users", {
  id: p.text("id").primaryKey(),
  name: p.text("name").notNull(),
  isAdmin: p.boolean("is_admin").notNull().default(false),
  createdAt: ms.pg("created_at").notNull(),
  disabledAt: ms.pg("disabled_at"),
  deletedAt: ms.pg("deleted_at"),
});

export type UsersRowsMatch = SameRow<typeof pgUsers, typeof users>;

/** A column holding the id of an existing user (the owner of the row). */
export const userRef = {
  sqlite: (name: string) =>
    s
      .text(name)
      .notNull()
      .references(() => users.id),
  pg: (name: string) =>
    p
      .text(name)
      .notNull()
      .references(() => pgUsers.id),
};

export const apiKeys = s.sqliteTable(
  "api_keys",
  {
    id: s.text("id").primaryKey(),
    userId: userRef.sqlite("user_id"),
    name: s.text("name").notNull(),
    /** sha256 of the key; the key itself is shown once and never stored. */
    keyHash: s.text("key_hash").notNull(),
    /** First characters of the key, so a user can tell keys apart. */
    prefix: s.text("prefix").notNull(),
    createdAt: ms.sqlite("created_at").notNull(),
    revokedAt: s.integer("revoked_at"),
  },
  (t) => [s.uniqueIndex("api_keys_hash_idx").on(t.keyHash)],
);

export const pgApiKeys = p.pgTable(
  "api_keys",
  {
    id: p.text("id").primaryKey(),
    userId: userRef.pg("user_id"),
    name: p.text("name").notNull(),
    keyHash: p.text("key_hash").notNull(),
    prefix: p.text("prefix").notNull(),
    createdAt: ms.pg("created_at").notNull(),
    revokedAt: ms.pg("revoked_at"),
  },
  (t) => [p.uniqueIndex("api_keys_hash_idx").on(t.keyHash)],
);

export type ApiKeysRowsMatch = SameRow<typeof pgApiKeys, typeof apiKeys>;

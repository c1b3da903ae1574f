import * as p from "drizzle-orm/pg-core";
import * as s from "drizzle-orm/sqlite-core";
import { json, ms, type SameRow } from "./columns";
import { userRef } from "./users";

export const webhooks = s.sqliteTable(
  "webhooks",
  {
    id: s.text("id").primaryKey(),
    ownerId: userRef.sqlite("owner_id"),
    url: s.text("url").notNull(),
    /** Event kinds to deliver; null delivers every kind. */
    events: json.sqlite<string[]>("events"),
    /** Only this conversation's events (and its sandbox's lifecycle); null for all of the owner's. */
    conversationId: s.text("conversation_id"),
    /** The HMAC key, sealed by the store (`enc:v1:…`, see `secrets/`): every signature needs it. */
    secret: s.text("secret").notNull(),
    createdAt: ms.sqlite("created_at").notNull(),
  },
  (t) => [s.index("webhooks_owner_created_idx").on(t.ownerId, t.createdAt, t.id)],
);

export const pgWebhooks = p.pgTable(
  "webhooks",
  {
    id: p.text("id").primaryKey(),
    ownerId: userRef.pg("owner_id"),
    url: p.text("url").notNull(),
    events: json.pg<string[]>("events"),
    conversationId: p.text("conversation_id"),
    secret: p.text("secret").notNull(),
    createdAt: ms.pg("created_at").notNull(),
  },
  (t) => [p.index("webhooks_owner_created_idx").on(t.ownerId, t.createdAt, t.id)],
);

export type WebhooksRowsMatch = SameRow<typeof pgWebhooks, typeof webhooks>;

/**
 * The outbox: one row per (webhook, event), written in the transaction that records the event.
 * Rows of one stream (a conversation, or a sandbox's lifecycle) are delivered in `seq` order.
 */
export const webhookDeliveries = s.sqliteTable(
  "webhook_deliveries",
  {
    seq: s.integer("seq").primaryKey({ autoIncrement: true }),
    id: s.text("id").notNull(),
    webhookId: s
      .text("webhook_id")
      .notNull()
      .references(() => webhooks.id, { onDelete: "cascade" }),
    stream: s.text("stream").notNull(),
    eventId: s.text("event_id").notNull(),
    eventKind: s.text("event_kind").notNull(),
    /** The exact JSON body posted on every attempt. */
    payload: s.text("payload").notNull(),
    /** pending | succeeded | failed */
    status: s.text("status").notNull(),
    attempts: s.integer("attempts").notNull().default(0),
    nextAttemptAt: s.integer("next_attempt_at").notNull(),
    lastStatusCode: s.integer("last_status_code"),
    lastError: s.text("last_error"),
    createdAt: ms.sqlite("created_at").notNull(),
    updatedAt: ms.sqlite("updated_at").notNull(),
    completedAt: s.integer("completed_at"),
    /**
     * The replica sending it right now and until when (a claim, so that two delivery workers
     * never send a row at once); null when nobody is. An expired claim is free again.
     */
    claimedBy: s.text("claimed_by"),
    claimedUntil: s.integer("claimed_until"),
  },
  (t) => [
    s.uniqueIndex("webhook_deliveries_id_idx").on(t.id),
    s.index("webhook_deliveries_pending_idx").on(t.status, t.webhookId, t.stream, t.seq),
    s.index("webhook_deliveries_webhook_seq_idx").on(t.webhookId, t.seq),
  ],
);

export const pgWebhookDeliveries = p.pgTable(
  "webhook_deliveries",
  {
    seq: p.bigint("seq", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
    id: p.text("id").notNull(),
    webhookId: p
      .text("webhook_id")
      .notNull()
      .references(() => pgWebhooks.id, { onDelete: "cascade" }),
    stream: p.text("stream").notNull(),
    eventId: p.text("event_id").notNull(),
    eventKind: p.text("event_kind").notNull(),
    payload: p.text("payload").notNull(),
    status: p.text("status").notNull(),
    attempts: p.bigint("attempts", { mode: "number" }).notNull().default(0),
    nextAttemptAt: ms.pg("next_attempt_at").notNull(),
    lastStatusCode: p.bigint("last_status_code", { mode: "number" }),
    lastError: p.text("last_error"),
    createdAt: ms.pg("created_at").notNull(),
    updatedAt: ms.pg("updated_at").notNull(),
    completedAt: ms.pg("completed_at"),
    claimedBy: p.text("claimed_by"),
    claimedUntil: ms.pg("claimed_until"),
  },
  (t) => [
    p.uniqueIndex("webhook_deliveries_id_idx").on(t.id),
    p.index("webhook_deliveries_pending_idx").on(t.status, t.webhookId, t.stream, t.seq),
    p.index("webhook_deliveries_webhook_seq_idx").on(t.webhookId, t.seq),
  ],
);

export type WebhookDeliveriesRowsMatch = SameRow<
  typeof pgWebhookDeliveries,
  typeof webhookDeliveries
>;

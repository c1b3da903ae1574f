import type * as schema from "../schema";
import type { CLIENT_FIELD_DEFAULTS, NO_LIFETIME } from "./row-defaults";

/*
 * Row shapes of the store, inferred from the SQLite tables (`schema.ts`). Each PostgreSQL table
 * infers the same row, checked at compile time beside the two definitions (`tables/`).
 */

/** `T` with the fields `K` optional. */
type Optional<T, K extends keyof T> = Omit<T, K> & Partial<Pick<T, K>>;

export type User = typeof schema.users.$inferSelect;
/** A user as created: not disabled, not deleted. */
export type NewUser = Omit<User, "disabledAt" | "deletedAt">;
export type ApiKey = typeof schema.apiKeys.$inferSelect;
export type SandboxSpecRow = typeof schema.sandboxSpecs.$inferSelect;
export type { DeclaredPort, SandboxPortAccess, SpecLifetime } from "../schema";
/** A spec as upserted: without lifetime defaults it has none (the operator's apply). */
export type NewSandboxSpec = Optional<SandboxSpecRow, "lifetime">;
export type SandboxRow = typeof schema.sandboxes.$inferSelect;
/** The lifetime columns of a sandbox (policy, active-time accounting, the sweep's due time). */
export type SandboxLifetimeFields = keyof typeof NO_LIFETIME;
export type SandboxLifetime = Pick<SandboxRow, SandboxLifetimeFields>;
/**
 * A sandbox as inserted: absent lifetime columns mean no policy and no active time yet; absent
 * `portAccess`, no declared ports and no auto-resume.
 */
export type NewSandbox = Optional<SandboxRow, SandboxLifetimeFields | "portAccess">;
export type ConversationRow = typeof schema.conversations.$inferSelect;
/** The OpenHands fields of a conversation: optional on insert (null, or `[]` for `prNumber`). */
export type ConversationClientFields = keyof typeof CLIENT_FIELD_DEFAULTS;
export type NewConversation = Optional<ConversationRow, ConversationClientFields>;
export type StartTaskRow = typeof schema.conversationStartTasks.$inferSelect;
export type ConversationEventRow = typeof schema.conversationEvents.$inferSelect;
export type WebhookRow = typeof schema.webhooks.$inferSelect;
export type WebhookDeliveryRow = typeof schema.webhookDeliveries.$inferSelect;
/** An `Idempotency-Key` record; `responseBody` is plain JSON text here (the store seals it). */
export type IdempotencyRecord = typeof schema.idempotencyKeys.$inferSelect;
export type LeaseRow = typeof schema.leases.$inferSelect;

export type SandboxPatch = Partial<Omit<SandboxRow, "id" | "ownerId" | "createdAt">>;

/**
 * What a warm-pool claim changes: the sandbox becomes its new owner's, as if created now, under
 * the owner's egress policy.
 */
export type SandboxClaim = Pick<
  SandboxRow,
  "ownerId" | "sessionApiKey" | "labels" | "network" | "createdAt" | "updatedAt"
> &
  Partial<Pick<SandboxRow, SandboxLifetimeFields | "portAccess">>;

export type ConversationPatch = Partial<
  Omit<ConversationRow, "id" | "ownerId" | "sandboxId" | "createdAt">
>;

export type StartTaskPatch = Partial<
  Pick<
    StartTaskRow,
    | "status"
    | "detail"
    | "appConversationId"
    | "sandboxId"
    | "agentServerUrl"
    | "idempotencyRecordId"
  >
> & { updatedAt: number };

export type NewWebhookDelivery = Omit<WebhookDeliveryRow, "seq" | "claimedBy" | "claimedUntil">;

export type WebhookDeliveryPatch = Partial<
  Pick<
    WebhookDeliveryRow,
    | "status"
    | "attempts"
    | "nextAttemptAt"
    | "lastStatusCode"
    | "lastError"
    | "completedAt"
    | "claimedBy"
    | "claimedUntil"
  >
> & { updatedAt: number };

export type DeliveryStatus = "pending" | "succeeded" | "failed";

/**
 * What a worker writes back for a row it claimed: every field the row keeps about its attempts,
 * given in full (an attempt's outcome, or the row's values unchanged for one it did not send).
 */
export type DeliveryOutcome = Pick<WebhookDeliveryRow, "seq"> &
  Required<Omit<WebhookDeliveryPatch, "claimedBy" | "claimedUntil">>;

/** A pending delivery that is due, with its webhook's owner (whose share of slots it uses). */
export type DueDelivery = WebhookDeliveryRow & { ownerId: string };

export interface DueDeliveriesQuery {
  /** Due means `nextAttemptAt <= now`. */
  now: number;
  limit: number;
  /** At most this many of one owner. */
  perOwner: number;
  /** In flight: left out. */
  excludeSeqs: number[];
  /** Owners without a free slot: left out. */
  excludeOwners: string[];
}

export interface SandboxFilter {
  ownerId: string;
  status?: string | undefined;
  specId?: string | undefined;
  /** `key` (label present) or `key=value`. */
  label?: string | undefined;
}

export type ConversationSort = "created" | "updated" | "title";

/** Time bounds in milliseconds since the epoch: `from` inclusive, `before` exclusive. */
export interface ConversationFilter {
  ownerId: string;
  sandboxId?: string | undefined;
  archived?: boolean | undefined;
  titleContains?: string | undefined;
  createdFrom?: number | undefined;
  createdBefore?: number | undefined;
  updatedFrom?: number | undefined;
  updatedBefore?: number | undefined;
  /** false: only conversations without a parent (sub-conversations left out). */
  includeSubConversations?: boolean | undefined;
}

export type StartTaskSort = "created" | "updated";

export interface StartTaskFilter {
  ownerId: string;
  /** The conversation the task created (its id is also the task's). */
  conversationId?: string | undefined;
  /** Milliseconds since the epoch, inclusive. */
  createdFrom?: number | undefined;
}

/** What one stored event tells about its conversation (see `recordEventActivity`). */
export interface EventActivity {
  /** When the event happened, in milliseconds since the epoch. */
  eventMs: number;
  /** The new execution status, when the event is a status update. */
  executionStatus: string | null;
  /** A title to use if the conversation still has none. */
  title: string | null;
}

export interface ConversationEventFilter {
  conversationId: string;
  kind?: string | undefined;
  /** Microseconds since the epoch: `from` inclusive, `before` exclusive. */
  fromUs?: number | undefined;
  beforeUs?: number | undefined;
}

export interface DeliveryFilter {
  webhookId: string;
  status?: DeliveryStatus | undefined;
}

import type { Page, PageRequest, SortDirection } from "../paging";
import type {
  ApiKey,
  ConversationEventFilter,
  ConversationEventRow,
  ConversationFilter,
  ConversationPatch,
  ConversationRow,
  ConversationSort,
  DeliveryFilter,
  DeliveryOutcome,
  DueDeliveriesQuery,
  DueDelivery,
  EventActivity,
  IdempotencyRecord,
  LeaseRow,
  NewConversation,
  NewSandbox,
  NewSandboxSpec,
  NewUser,
  NewWebhookDelivery,
  SandboxClaim,
  SandboxFilter,
  SandboxPatch,
  SandboxRow,
  SandboxSpecRow,
  StartTaskFilter,
  StartTaskPatch,
  StartTaskRow,
  StartTaskSort,
  User,
  WebhookDeliveryPatch,
  WebhookDeliveryRow,
  WebhookRow,
} from "./rows";

/*
 * The repositories of the store port. Every call is asynchronous, so that an adapter over a
 * network database (PostgreSQL) implements the same interface as the embedded SQLite one. Reads
 * answer `undefined` for a missing row; an invalid page id rejects with `InvalidPageIdError`.
 */

export interface UserRepository {
  insert(user: NewUser): Promise<User>;
  /** A user that was not deleted (disabled users included). */
  get(id: string): Promise<User | undefined>;
  /** Users that were not deleted. */
  count(): Promise<number>;
  /** Users that were not deleted, oldest first. */
  list(): Promise<User[]>;
  /** Disables (a time) or enables (null) the user; false when there is no such live user. */
  setDisabled(id: string, disabledAt: number | null): Promise<boolean>;
  /** Makes a disabled or deleted user live again; false when there is no such row. */
  restore(id: string): Promise<boolean>;
  /** Leaves a tombstone (the user's conversations keep their owner) and removes every key. */
  markDeleted(id: string, deletedAt: number): Promise<void>;
  insertApiKey(key: ApiKey): Promise<ApiKey>;
  /** A user's live (not revoked) keys, oldest first. */
  listLiveKeys(userId: string): Promise<ApiKey[]>;
  /** Marks a key revoked (from `now` on). */
  revokeKey(keyId: string, now: number): Promise<void>;
  /** Makes a revoked key live again (a fixed admin key from the environment); false if unknown. */
  reviveKeyByHash(keyHash: string): Promise<boolean>;
  /** The owner of a live (not revoked) key, if that owner is neither disabled nor deleted. */
  findByKeyHash(keyHash: string): Promise<User | undefined>;
}

export interface SandboxSpecRepository {
  get(id: string): Promise<SandboxSpecRow | undefined>;
  /** Inserts or replaces a spec (built-in specs are refreshed at every start). */
  upsert(spec: NewSandboxSpec): Promise<void>;
  search(page: PageRequest): Promise<Page<SandboxSpecRow>>;
}

export interface SandboxRepository {
  /** Stores the sandbox; absent lifetime columns take their defaults (`NO_LIFETIME`). */
  insert(row: NewSandbox): Promise<SandboxRow>;
  get(id: string): Promise<SandboxRow | undefined>;
  /** Applies `patch` and returns the updated row (undefined when the row is gone). */
  update(id: string, patch: SandboxPatch): Promise<SandboxRow | undefined>;
  remove(id: string): Promise<void>;
  /**
   * Hands a RUNNING sandbox of `fromOwnerId` (the warm pool) to `claim.ownerId`; undefined when
   * it is no longer RUNNING or no longer that owner's (someone else claimed it first).
   */
  claim(id: string, fromOwnerId: string, claim: SandboxClaim): Promise<SandboxRow | undefined>;
  /** The owner's sandboxes, newest first. */
  search(filter: SandboxFilter, page: PageRequest): Promise<Page<SandboxRow>>;
  listByStatus(statuses: string[]): Promise<SandboxRow[]>;
  listAll(): Promise<SandboxRow[]>;
  countByStatus(statuses: string[]): Promise<number>;
  /**
   * Sandboxes whose lifetime is due (`lifetimeDueAt <= now`), earliest first, at most `limit`:
   * an index range, so its cost follows the rows due, not the rows stored.
   */
  listLifetimeDue(now: number, limit: number): Promise<SandboxRow[]>;
  /**
   * Moves a sandbox's lifetime due time (and the activity it was computed from) only if its status
   * and due time are still `expected` (nothing moved it meanwhile); false when they were not.
   */
  rescheduleLifetime(
    id: string,
    expected: Pick<SandboxRow, "status" | "lifetimeDueAt">,
    next: Pick<SandboxRow, "lifetimeDueAt" | "lastActivityAt">,
  ): Promise<boolean>;
}

export interface ConversationRepository {
  /** Stores the conversation; absent OpenHands fields are null (`prNumber` `[]`). */
  insert(row: NewConversation): Promise<ConversationRow>;
  get(id: string): Promise<ConversationRow | undefined>;
  update(id: string, patch: ConversationPatch): Promise<ConversationRow | undefined>;
  /**
   * Moves the conversation's record by one stored event: activity times only forward, the
   * execution status when the event carries one, the title only when there is none yet.
   */
  recordEventActivity(id: string, event: EventActivity): Promise<void>;
  /** `recordEventActivity` for several conversations at once (one statement on PostgreSQL). */
  recordEventActivities(activities: { id: string; event: EventActivity }[]): Promise<void>;
  remove(id: string): Promise<void>;
  listBySandbox(sandboxId: string): Promise<ConversationRow[]>;
  /** Marks every conversation of a sandbox archived (its sandbox no longer exists). */
  archiveBySandbox(sandboxId: string, now: number): Promise<void>;
  search(
    filter: ConversationFilter,
    sort: ConversationSort,
    direction: SortDirection,
    page: PageRequest,
  ): Promise<Page<ConversationRow>>;
  count(filter: ConversationFilter): Promise<number>;
}

export interface StartTaskRepository {
  insert(row: StartTaskRow): Promise<StartTaskRow>;
  get(id: string): Promise<StartTaskRow | undefined>;
  update(id: string, patch: StartTaskPatch): Promise<StartTaskRow | undefined>;
  /** Every task (of any owner) in one of `statuses`: the unfinished ones, for the reconcile. */
  listByStatus(statuses: string[]): Promise<StartTaskRow[]>;
  search(
    filter: StartTaskFilter,
    sort: StartTaskSort,
    direction: SortDirection,
    page: PageRequest,
  ): Promise<Page<StartTaskRow>>;
  count(filter: StartTaskFilter): Promise<number>;
}

export interface ConversationEventRepository {
  /** Stores an event unless one with its id is already stored; true when it was new. */
  insertIfNew(row: ConversationEventRow): Promise<boolean>;
  /**
   * `insertIfNew` for many events at once (one statement per few hundred on PostgreSQL): per row,
   * whether it was new (of two rows with one id, the first).
   */
  insertManyIfNew(rows: ConversationEventRow[]): Promise<boolean[]>;
  /** The conversation's newest stored event: where a resumed follower picks up. */
  latest(conversationId: string): Promise<ConversationEventRow | undefined>;
  search(
    filter: ConversationEventFilter,
    direction: SortDirection,
    page: PageRequest,
  ): Promise<Page<ConversationEventRow>>;
  count(filter: ConversationEventFilter): Promise<number>;
  /** Drops a conversation's stored events (the conversation was deleted). */
  removeByConversation(conversationId: string): Promise<void>;
}

export interface WebhookRepository {
  insert(row: WebhookRow): Promise<WebhookRow>;
  get(id: string): Promise<WebhookRow | undefined>;
  /** Every webhook of a user: the candidates for each of that user's events. */
  listByOwner(ownerId: string): Promise<WebhookRow[]>;
  /** Removes the webhook and, by cascade, its deliveries. */
  remove(id: string): Promise<void>;
  /** The owner's webhooks, newest first. */
  search(ownerId: string, page: PageRequest): Promise<Page<WebhookRow>>;
}

export interface WebhookDeliveryRepository {
  insert(row: NewWebhookDelivery): Promise<void>;
  /** Inserts many, in order (one statement per few hundred on PostgreSQL). */
  insertMany(rows: NewWebhookDelivery[]): Promise<void>;
  get(id: string): Promise<WebhookDeliveryRow | undefined>;
  /**
   * Due heads — the oldest pending delivery of each (webhook, stream), the only ones ever sent,
   * which keeps each stream in order — with their owners. At most `perOwner` per owner, spread
   * over the owner's webhooks; ordered so that every owner's first comes before any owner's
   * second (and within an owner, every webhook's first before any webhook's second), then
   * soonest due first.
   */
  dueHeads(query: DueDeliveriesQuery): Promise<DueDelivery[]>;
  /** When the soonest head that is not due at `now` will be; null when there is none. */
  nextDueAt(now: number): Promise<number | null>;
  /** How many deliveries are pending (due or waiting for a retry), for the queue-depth gauge. */
  countPending(): Promise<number>;
  /**
   * Claims pending deliveries for `holder` until `until`: answers the seqs it got, leaving out rows
   * that are no longer pending or that another holder's unexpired claim covers. PostgreSQL skips
   * rows another transaction has locked (`FOR UPDATE SKIP LOCKED`), so of two workers claiming the
   * same row at once exactly one gets it. `dueHeads` and `nextDueAt` pass over claimed rows until
   * their claim expires; an `update` that records an outcome clears the claim.
   */
  claim(seqs: number[], holder: string, now: number, until: number): Promise<number[]>;
  /**
   * Up to `perStream` pending deliveries behind each of the `heads` (seqs): the same webhook and
   * stream, later seqs, each stream's oldest first. A worker that claimed a head may claim these
   * too and send them, in order, after it.
   */
  pendingBehind(heads: number[], perStream: number): Promise<WebhookDeliveryRow[]>;
  update(seq: number, patch: WebhookDeliveryPatch): Promise<void>;
  /**
   * Writes several rows' outcomes at once (one statement per thousand rows) and ends their
   * claims — of rows `holder` still claims only: a row whose claim another holder has taken since
   * is theirs to record.
   */
  recordOutcomes(outcomes: DeliveryOutcome[], holder: string): Promise<void>;
  /** A webhook's deliveries, newest first. */
  search(filter: DeliveryFilter, page: PageRequest): Promise<Page<WebhookDeliveryRow>>;
}

/**
 * `Idempotency-Key` records (one per user and key). Claiming is a check-then-insert: do it in a
 * transaction (`get`, maybe `remove`, `insert`).
 */
export interface IdempotencyKeyRepository {
  /** Inserts an `in_progress` record; rejects when the (user, key) pair is taken. */
  insert(row: IdempotencyRecord): Promise<IdempotencyRecord>;
  get(userId: string, key: string): Promise<IdempotencyRecord | undefined>;
  /** Stores the answer of a finished create; false when the record is gone. */
  complete(id: string, responseStatus: number, responseBody: string): Promise<boolean>;
  remove(id: string): Promise<void>;
  /** Removes every record created before `before` (expired); how many. */
  removeCreatedBefore(before: number): Promise<number>;
}

/**
 * Leases held by control-plane replicas (see `LeaseRow`). Times are the database's clock where
 * it has one (PostgreSQL), so the replicas' clocks need not agree.
 */
export interface LeaseRepository {
  /**
   * Takes the lease for `holder` until `ttlMs` from now when it is free, expired or already
   * `holder`'s (a renewal); true when `holder` holds it after the call.
   */
  acquire(name: string, holder: string, ttlMs: number): Promise<boolean>;
  /** Gives the lease up, if `holder` holds it (anyone may take it at once). */
  release(name: string, holder: string): Promise<void>;
  /** The lease as stored (expired or not). */
  get(name: string): Promise<LeaseRow | undefined>;
  /** Unexpired leases whose name starts with `prefix`, by name. */
  listLive(prefix: string): Promise<LeaseRow[]>;
}

/** Every repository of the store: what `Store` offers outside a transaction and `tx` inside one. */
export interface Repositories {
  users: UserRepository;
  specs: SandboxSpecRepository;
  sandboxes: SandboxRepository;
  conversations: ConversationRepository;
  conversationEvents: ConversationEventRepository;
  startTasks: StartTaskRepository;
  webhooks: WebhookRepository;
  webhookDeliveries: WebhookDeliveryRepository;
  idempotencyKeys: IdempotencyKeyRepository;
  leases: LeaseRepository;
}

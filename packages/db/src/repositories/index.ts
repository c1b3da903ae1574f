import type { Executor } from "../query/query";
import { createConversationEventRepository } from "./conversation-events";
import { createConversationRepository } from "./conversations";
import { createIdempotencyKeyRepository } from "./idempotency-keys";
import { createLeaseRepository } from "./leases";
import { createSandboxSpecRepository } from "./sandbox-specs";
import { createSandboxRepository } from "./sandboxes";
import { createStartTaskRepository } from "./start-tasks";
import { createUserRepository } from "./users";
import { createWebhookDeliveryRepository } from "./webhook-deliveries";
import { createWebhookRepository } from "./webhooks";

export type { ConversationEventRepository } from "./conversation-events";
export type { ConversationRepository } from "./conversations";
export type { IdempotencyKeyRepository } from "./idempotency-keys";
export type { LeaseRepository } from "./leases";
export type { SandboxSpecRepository } from "./sandbox-specs";
export type { SandboxRepository } from "./sandboxes";
export type { StartTaskRepository } from "./start-tasks";
export type { UserRepository } from "./users";
export type { WebhookDeliveryRepository } from "./webhook-deliveries";
export type { WebhookRepository } from "./webhooks";

/**
 * Every repository of the store: what `Store` offers outside a transaction and `tx` inside one.
 * Their types are those of the repositories below (one file per table). Every call is
 * asynchronous; reads answer `undefined` for a missing row; an invalid page id rejects with
 * `InvalidPageIdError`.
 */
export type Repositories = ReturnType<typeof plainRepositories>;

/**
 * The port's repositories, for either dialect: every call runs through `exec` (the store's
 * connections outside a transaction, the transaction's inside one). The stores wrap them so that
 * secrets are sealed on their way in and opened on their way out (`createSealedRepositories`).
 */
export function plainRepositories(exec: Executor) {
  return {
    users: createUserRepository(exec),
    specs: createSandboxSpecRepository(exec),
    sandboxes: createSandboxRepository(exec),
    conversations: createConversationRepository(exec),
    conversationEvents: createConversationEventRepository(exec),
    startTasks: createStartTaskRepository(exec),
    webhooks: createWebhookRepository(exec),
    webhookDeliveries: createWebhookDeliveryRepository(exec),
    idempotencyKeys: createIdempotencyKeyRepository(exec),
    leases: createLeaseRepository(exec),
  };
}

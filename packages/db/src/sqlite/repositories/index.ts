import type { Db } from "../client";
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

/**
 * The synchronous SQLite repositories of one connection (statements prepared on it). The store
 * wraps them into the asynchronous port; nothing outside `sqlite/` calls them. `clock` is the
 * leases' (epoch ms).
 */
export function createSyncRepositories(db: Db, clock: () => number = Date.now) {
  return {
    users: createUserRepository(db),
    specs: createSandboxSpecRepository(db),
    sandboxes: createSandboxRepository(db),
    conversations: createConversationRepository(db),
    conversationEvents: createConversationEventRepository(db),
    startTasks: createStartTaskRepository(db),
    webhooks: createWebhookRepository(db),
    webhookDeliveries: createWebhookDeliveryRepository(db),
    idempotencyKeys: createIdempotencyKeyRepository(db),
    leases: createLeaseRepository(db, clock),
  };
}
export type SyncRepositories = ReturnType<typeof createSyncRepositories>;

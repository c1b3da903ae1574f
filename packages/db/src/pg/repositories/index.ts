import type { Repositories } from "../../port/repositories";
import type { SecretRows } from "../../secrets/secret-rows";
import type { PgExecutor } from "../client";
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
 * The port's repositories over PostgreSQL, every call run through `exec` (the pool, or one
 * transaction's client). Secrets are sealed before they are written and opened as they are read.
 * `clock` replaces the database's clock for the leases (tests).
 */
export function createPgRepositories(
  exec: PgExecutor,
  secrets: SecretRows,
  clock?: () => number,
): Repositories {
  return {
    users: createUserRepository(exec),
    specs: createSandboxSpecRepository(exec),
    sandboxes: createSandboxRepository(exec, secrets),
    conversations: createConversationRepository(exec),
    conversationEvents: createConversationEventRepository(exec),
    startTasks: createStartTaskRepository(exec),
    webhooks: createWebhookRepository(exec, secrets),
    webhookDeliveries: createWebhookDeliveryRepository(exec),
    idempotencyKeys: createIdempotencyKeyRepository(exec, secrets),
    leases: createLeaseRepository(exec, clock),
  };
}

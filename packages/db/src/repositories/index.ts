import type { Db } from "../client";
import { createConversationEventRepository } from "./conversation-events";
import { createConversationRepository } from "./conversations";
import { createSandboxSpecRepository } from "./sandbox-specs";
import { createSandboxRepository } from "./sandboxes";
import { createUserRepository } from "./users";
import { createWebhookDeliveryRepository } from "./webhook-deliveries";
import { createWebhookRepository } from "./webhooks";

export * from "./conversation-events";
export * from "./conversations";
export * from "./sandbox-specs";
export * from "./sandboxes";
export * from "./users";
export * from "./webhook-deliveries";
export * from "./webhooks";

export function createRepositories(db: Db) {
  return {
    users: createUserRepository(db),
    specs: createSandboxSpecRepository(db),
    sandboxes: createSandboxRepository(db),
    conversations: createConversationRepository(db),
    conversationEvents: createConversationEventRepository(db),
    webhooks: createWebhookRepository(db),
    webhookDeliveries: createWebhookDeliveryRepository(db),
  };
}
export type Repositories = ReturnType<typeof createRepositories>;

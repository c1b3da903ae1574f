/*
 * The PostgreSQL tables, as drizzle-kit reads them (`npm run generate:pg`): the same tables,
 * columns and indexes as SQLite's, each defined in this folder beside its SQLite twin.
 */

export {
  pgIdempotencyKeys as idempotencyKeys,
  pgLeases as leases,
  pgSecretsKeyCheck as secretsKeyCheck,
} from "./bookkeeping";
export {
  pgConversationEvents as conversationEvents,
  pgConversationStartTasks as conversationStartTasks,
  pgConversations as conversations,
} from "./conversations";
export { pgSandboxes as sandboxes, pgSandboxSpecs as sandboxSpecs } from "./sandboxes";
export { pgApiKeys as apiKeys, pgUsers as users } from "./users";
export {
  pgWebhookDeliveries as webhookDeliveries,
  pgWebhooks as webhooks,
} from "./webhooks";

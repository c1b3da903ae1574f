/*
 * The PostgreSQL tables, as drizzle-kit reads them (`npm run generate:pg`): the same tables,
 * columns and indexes as SQLite's, each defined in `../tables/` beside its SQLite twin.
 */

export {
  pgIdempotencyKeys as idempotencyKeys,
  pgLeases as leases,
  pgSecretsKeyCheck as secretsKeyCheck,
} from "../tables/bookkeeping";
export {
  pgConversationEvents as conversationEvents,
  pgConversationStartTasks as conversationStartTasks,
  pgConversations as conversations,
} from "../tables/conversations";
export { pgSandboxes as sandboxes, pgSandboxSpecs as sandboxSpecs } from "../tables/sandboxes";
export { pgApiKeys as apiKeys, pgUsers as users } from "../tables/users";
export {
  pgWebhookDeliveries as webhookDeliveries,
  pgWebhooks as webhooks,
} from "../tables/webhooks";

/*
 * The SQLite tables, as drizzle-kit reads them (`npm run generate`). Each is defined in `tables/`
 * beside its PostgreSQL twin (listed in `tables/pg.ts`).
 */

export { idempotencyKeys, leases, secretsKeyCheck } from "./tables/bookkeeping";
export { conversationEvents, conversationStartTasks, conversations } from "./tables/conversations";
export type { SpecLifetime } from "./tables/sandboxes";
export { sandboxes, sandboxSpecs } from "./tables/sandboxes";
export { apiKeys, users } from "./tables/users";
export { webhookDeliveries, webhooks } from "./tables/webhooks";

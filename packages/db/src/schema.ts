/*
 * The SQLite tables, as drizzle-kit reads them (`npm run generate`). Each is defined in `tables/`
 * beside its PostgreSQL twin (listed in `tables/pg.ts`).
 */

export { idempotencyKeys, leases, secretsKeyCheck } from "./tables/bookkeeping";
export { conversationEvents, conversationStartTasks, conversations } from "./tables/conversations";
export {
  type DeclaredPort,
  NO_PORT_ACCESS,
  type SandboxPortAccess,
  type SpecLifetime,
  sandboxes,
  sandboxSpecs,
} from "./tables/sandboxes";
export { apiKeys, users } from "./tables/users";
export { webhookDeliveries, webhooks } from "./tables/webhooks";

import type * as sqlite from "../schema";
import type * as pg from "./schema";

/*
 * Compile-time proof that every PostgreSQL table infers exactly the row type of its SQLite twin
 * (the port's row types come from the SQLite schema). A column added to one schema only fails
 * `tsc` here.
 */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Row<T extends { $inferSelect: unknown }> = T["$inferSelect"];
type Check<T extends true> = T;

export type RowTypesMatch = [
  Check<Same<Row<typeof pg.users>, Row<typeof sqlite.users>>>,
  Check<Same<Row<typeof pg.apiKeys>, Row<typeof sqlite.apiKeys>>>,
  Check<Same<Row<typeof pg.sandboxSpecs>, Row<typeof sqlite.sandboxSpecs>>>,
  Check<Same<Row<typeof pg.sandboxes>, Row<typeof sqlite.sandboxes>>>,
  Check<Same<Row<typeof pg.conversations>, Row<typeof sqlite.conversations>>>,
  Check<Same<Row<typeof pg.conversationStartTasks>, Row<typeof sqlite.conversationStartTasks>>>,
  Check<Same<Row<typeof pg.conversationEvents>, Row<typeof sqlite.conversationEvents>>>,
  Check<Same<Row<typeof pg.webhooks>, Row<typeof sqlite.webhooks>>>,
  Check<Same<Row<typeof pg.webhookDeliveries>, Row<typeof sqlite.webhookDeliveries>>>,
  Check<Same<Row<typeof pg.idempotencyKeys>, Row<typeof sqlite.idempotencyKeys>>>,
  Check<Same<Row<typeof pg.leases>, Row<typeof sqlite.leases>>>,
];

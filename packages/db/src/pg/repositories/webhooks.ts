import { and, eq } from "drizzle-orm";
import { keyset, toPage } from "../../paging";
import type { WebhookRepository } from "../../port/repositories";
import type { SecretRows } from "../../secrets/secret-rows";
import type { PgExecutor } from "../client";
import { webhooks } from "../schema";

/** Webhook secrets are sealed on the way in and opened on the way out (`secrets`). */
export function createWebhookRepository(
  { run }: PgExecutor,
  secrets: SecretRows,
): WebhookRepository {
  return {
    insert: (row) =>
      run(async (db) => {
        await db.insert(webhooks).values(secrets.sealWebhook(row));
        return row;
      }),
    get: (id) =>
      run(async (db) => {
        const [row] = await db.select().from(webhooks).where(eq(webhooks.id, id));
        return row && secrets.openWebhook(row);
      }),
    listByOwner: (ownerId) =>
      run(async (db) =>
        secrets.openWebhooks(await db.select().from(webhooks).where(eq(webhooks.ownerId, ownerId))),
      ),
    remove: (id) =>
      run(async (db) => {
        await db.delete(webhooks).where(eq(webhooks.id, id));
      }),
    search: (ownerId, page) =>
      run(async (db) => {
        const { where, orderBy } = keyset(webhooks.createdAt, webhooks.id, "desc", page.pageId);
        const rows = await db
          .select()
          .from(webhooks)
          .where(and(eq(webhooks.ownerId, ownerId), where))
          .orderBy(...orderBy)
          .limit(page.limit + 1);
        return secrets.openWebhookPage(toPage(rows, page.limit, (r) => r.createdAt));
      }),
  };
}

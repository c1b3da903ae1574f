import { and, eq, sql } from "drizzle-orm";
import { keyset, type Page, type PageRequest, toPage } from "../../paging";
import type { WebhookRow } from "../../port/rows";
import { webhooks } from "../../schema";
import type { Db } from "../client";

export function createWebhookRepository(db: Db) {
  // Asked for every stored event (which webhooks want it?): prepared once.
  const byOwner = db
    .select()
    .from(webhooks)
    .where(eq(webhooks.ownerId, sql.placeholder("ownerId")))
    .prepare();
  return {
    insert(row: WebhookRow): WebhookRow {
      db.insert(webhooks).values(row).run();
      return row;
    },
    get(id: string): WebhookRow | undefined {
      return db.select().from(webhooks).where(eq(webhooks.id, id)).get();
    },
    /** Every webhook of a user: the candidates for each of that user's events. */
    listByOwner(ownerId: string): WebhookRow[] {
      return byOwner.all({ ownerId });
    },
    /** Removes the webhook and, by cascade, its deliveries. */
    remove(id: string): void {
      db.delete(webhooks).where(eq(webhooks.id, id)).run();
    },
    search(ownerId: string, page: PageRequest): Page<WebhookRow> {
      const { where, orderBy } = keyset(webhooks.createdAt, webhooks.id, "desc", page.pageId);
      const rows = db
        .select()
        .from(webhooks)
        .where(and(eq(webhooks.ownerId, ownerId), where))
        .orderBy(...orderBy)
        .limit(page.limit + 1)
        .all();
      return toPage(rows, page.limit, (r) => r.createdAt);
    },
  };
}

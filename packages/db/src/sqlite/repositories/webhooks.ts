import { eq, sql } from "drizzle-orm";
import type { Page, PageRequest } from "../../paging";
import type { WebhookRow } from "../../port/rows";
import { webhooks } from "../../schema";
import type { Db } from "../client";
import { selectPage } from "../select-page";

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
      const key = {
        sort: webhooks.createdAt,
        id: webhooks.id,
        direction: "desc",
        value: (r: WebhookRow) => r.createdAt,
      } as const;
      return selectPage(db, webhooks, eq(webhooks.ownerId, ownerId), key, page);
    },
  };
}

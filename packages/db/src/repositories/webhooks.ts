import { eq, sql } from "drizzle-orm";
import type { PageRequest } from "../paging";
import type { WebhookRow } from "../port/rows";
import { type Executor, selectById, selectPage } from "../query/query";

export type WebhookRepository = ReturnType<typeof createWebhookRepository>;

export function createWebhookRepository({ read, write }: Executor) {
  return {
    insert: (row: WebhookRow) =>
      write(async ({ db, t }) => {
        await db.insert(t.webhooks).values(row);
        return row;
      }),
    get: (id: string) => read((q) => selectById(q, "webhooks_by_id", (t) => t.webhooks, id)),
    /**
     * Every webhook of a user: the candidates for each of that user's events. Asked for every
     * stored event: prepared once per connection.
     */
    listByOwner: (ownerId: string) =>
      read((q) =>
        q
          .prepared("webhooks_by_owner", ({ db, t }) =>
            db
              .select()
              .from(t.webhooks)
              .where(eq(t.webhooks.ownerId, sql.placeholder("ownerId")))
              .prepare("webhooks_by_owner"),
          )
          .all({ ownerId }),
      ),
    /** Removes the webhook and, by cascade, its deliveries. */
    remove: (id: string) =>
      write(async ({ db, t }) => {
        await db.delete(t.webhooks).where(eq(t.webhooks.id, id));
      }),
    /** The owner's webhooks, newest first. */
    search: (ownerId: string, page: PageRequest) =>
      read(({ db, t }) => {
        const key = { sort: t.webhooks.createdAt, direction: "desc" } as const;
        return selectPage(db, t.webhooks, eq(t.webhooks.ownerId, ownerId), key, page);
      }),
  };
}

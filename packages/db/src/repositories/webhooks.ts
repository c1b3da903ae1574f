import { eq, sql } from "drizzle-orm";
import type { WebhookRepository } from "../port/repositories";
import type { WebhookRow } from "../port/rows";
import { type Executor, selectPage } from "../query/query";

export function createWebhookRepository({ read, write }: Executor): WebhookRepository {
  return {
    insert: (row) =>
      write(async ({ db, t }) => {
        await db.insert(t.webhooks).values(row);
        return row;
      }),
    get: (id) =>
      read(async ({ db, t }) => {
        const [row] = await db.select().from(t.webhooks).where(eq(t.webhooks.id, id));
        return row;
      }),
    // Asked for every stored event (which webhooks want it?): prepared once per connection.
    listByOwner: (ownerId) =>
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
    remove: (id) =>
      write(async ({ db, t }) => {
        await db.delete(t.webhooks).where(eq(t.webhooks.id, id));
      }),
    search: (ownerId, page) =>
      read(({ db, t }) => {
        const key = {
          sort: t.webhooks.createdAt,
          direction: "desc",
          value: (r: WebhookRow) => r.createdAt,
        } as const;
        return selectPage(db, t.webhooks, eq(t.webhooks.ownerId, ownerId), key, page);
      }),
  };
}

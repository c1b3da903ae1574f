import { and, asc, eq, inArray, min, notInArray } from "drizzle-orm";
import { keyset, type Page, type PageRequest, toPage } from "../../paging";
import type {
  DeliveryFilter,
  NewWebhookDelivery,
  WebhookDeliveryPatch,
  WebhookDeliveryRow,
} from "../../port/rows";
import { webhookDeliveries } from "../../schema";
import type { Db } from "../client";

export function createWebhookDeliveryRepository(db: Db) {
  const d = webhookDeliveries;
  return {
    insert(row: NewWebhookDelivery): void {
      db.insert(d).values(row).run();
    },
    get(id: string): WebhookDeliveryRow | undefined {
      return db.select().from(d).where(eq(d.id, id)).get();
    },
    /**
     * The oldest pending delivery of every (webhook, stream), soonest due first, leaving out
     * `excludeSeqs` (those in flight). Only heads are ever sent, which keeps each stream in order.
     */
    pendingHeads(limit: number, excludeSeqs: number[]): WebhookDeliveryRow[] {
      const heads = db
        .select({ seq: min(d.seq) })
        .from(d)
        .where(eq(d.status, "pending"))
        .groupBy(d.webhookId, d.stream);
      return db
        .select()
        .from(d)
        .where(
          and(
            inArray(d.seq, heads),
            excludeSeqs.length > 0 ? notInArray(d.seq, excludeSeqs) : undefined,
          ),
        )
        .orderBy(asc(d.nextAttemptAt), asc(d.seq))
        .limit(limit)
        .all();
    },
    update(seq: number, patch: WebhookDeliveryPatch): void {
      db.update(d).set(patch).where(eq(d.seq, seq)).run();
    },
    /** A webhook's deliveries, newest first. */
    search(filter: DeliveryFilter, page: PageRequest): Page<WebhookDeliveryRow> {
      const { where, orderBy } = keyset(d.seq, d.id, "desc", page.pageId);
      const rows = db
        .select()
        .from(d)
        .where(
          and(
            eq(d.webhookId, filter.webhookId),
            filter.status ? eq(d.status, filter.status) : undefined,
            where,
          ),
        )
        .orderBy(...orderBy)
        .limit(page.limit + 1)
        .all();
      return toPage(rows, page.limit, (r) => r.seq);
    },
  };
}

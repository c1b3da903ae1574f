import { and, count, eq, inArray, sql } from "drizzle-orm";
import * as batches from "../../due-deliveries";
import { dueHeadsQuery, inPickedOrder, pendingHeadsCte } from "../../due-deliveries";
import type { Page, PageRequest } from "../../paging";
import type {
  DeliveryFilter,
  DeliveryOutcome,
  DueDeliveriesQuery,
  DueDelivery,
  NewWebhookDelivery,
  WebhookDeliveryPatch,
  WebhookDeliveryRow,
} from "../../port/rows";
import { webhookDeliveries, webhooks } from "../../schema";
import type { Db } from "../client";
import { selectPage } from "../select-page";
import { placeholders } from "./placeholders";

const COLUMNS = [
  "id",
  "webhookId",
  "stream",
  "eventId",
  "eventKind",
  "payload",
  "status",
  "attempts",
  "nextAttemptAt",
  "lastStatusCode",
  "lastError",
  "createdAt",
  "updatedAt",
  "completedAt",
] as const satisfies readonly (keyof NewWebhookDelivery)[];

export function createWebhookDeliveryRepository(db: Db) {
  const d = webhookDeliveries;
  // Every followed event's outbox rows go through this insert: prepared once, not rebuilt per row
  // (building it was most of the ingest worker's time inside its transactions).
  const insertOne = db.insert(d).values(placeholders(COLUMNS)).prepare();
  return {
    insert(row: NewWebhookDelivery): void {
      db.insert(d).values(row).run();
    },
    insertMany(rows: NewWebhookDelivery[]): void {
      for (const row of rows) insertOne.run(row);
    },
    get(id: string): WebhookDeliveryRow | undefined {
      return db.select().from(d).where(eq(d.id, id)).get();
    },
    /** See the port (`WebhookDeliveryRepository.dueHeads`). */
    dueHeads(query: DueDeliveriesQuery): DueDelivery[] {
      const picked = db
        .all<{ seq: number; owner_id: string }>(dueHeadsQuery({ deliveries: d, webhooks }, query))
        .map((p) => ({ seq: p.seq, ownerId: p.owner_id }));
      if (picked.length === 0) return [];
      const rows = db
        .select()
        .from(d)
        .where(
          inArray(
            d.seq,
            picked.map((p) => p.seq),
          ),
        )
        .all();
      return inPickedOrder(picked, rows);
    },
    /** A head waits for its retry time and for another holder's claim to expire. */
    nextDueAt(now: number): number | null {
      const next = db.get<{ at: number | null }>(sql`
        with recursive ${pendingHeadsCte(d)}
        select min(max(d.next_attempt_at, coalesce(d.claimed_until, 0))) as at
        from heads h join webhook_deliveries d on d.seq = h.seq
        where max(d.next_attempt_at, coalesce(d.claimed_until, 0)) > ${now}`);
      return next?.at ?? null;
    },
    countPending(): number {
      return db.select({ n: count() }).from(d).where(eq(d.status, "pending")).get()?.n ?? 0;
    },
    claim(seqs: number[], holder: string, now: number, until: number): number[] {
      if (seqs.length === 0) return [];
      return db
        .update(d)
        .set({ claimedBy: holder, claimedUntil: until })
        .where(
          and(
            inArray(d.seq, seqs),
            eq(d.status, "pending"),
            sql`(${d.claimedUntil} is null or ${d.claimedUntil} <= ${now})`,
          ),
        )
        .returning({ seq: d.seq })
        .all()
        .map((row) => row.seq);
    },
    pendingBehind(heads: number[], perStream: number): WebhookDeliveryRow[] {
      if (heads.length === 0 || perStream <= 0) return [];
      const seqs = db
        .all<{ seq: number }>(batches.pendingBehindQuery(d, heads, perStream))
        .map((row) => row.seq);
      if (seqs.length === 0) return [];
      return db.select().from(d).where(inArray(d.seq, seqs)).orderBy(d.seq).all();
    },
    /** Records an attempt's outcome; the claim ends with it. */
    update(seq: number, patch: WebhookDeliveryPatch): void {
      db.update(d)
        .set({ claimedBy: null, claimedUntil: null, ...patch })
        .where(eq(d.seq, seq))
        .run();
    },
    recordOutcomes(outcomes: DeliveryOutcome[], holder: string): void {
      for (let i = 0; i < outcomes.length; i += batches.OUTCOMES_PER_STATEMENT) {
        db.run(
          batches.recordOutcomesStatement(
            d,
            outcomes.slice(i, i + batches.OUTCOMES_PER_STATEMENT),
            holder,
          ),
        );
      }
    },
    /** A webhook's deliveries, newest first. */
    search(filter: DeliveryFilter, page: PageRequest): Page<WebhookDeliveryRow> {
      const matching = and(
        eq(d.webhookId, filter.webhookId),
        filter.status ? eq(d.status, filter.status) : undefined,
      );
      const key = {
        sort: d.seq,
        id: d.id,
        direction: "desc",
        value: (r: WebhookDeliveryRow) => r.seq,
      } as const;
      return selectPage(db, d, matching, key, page);
    },
  };
}

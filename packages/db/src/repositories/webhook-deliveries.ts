import { and, eq, inArray, sql } from "drizzle-orm";
import {
  dueHeadsQuery,
  inPickedOrder,
  OUTCOMES_PER_STATEMENT,
  pendingBehindQuery,
  pendingHeadsCte,
  recordOutcomesStatement,
} from "../due-deliveries";
import type { PageRequest } from "../paging";
import type {
  DeliveryFilter,
  DeliveryOutcome,
  DueDeliveriesQuery,
  DueDelivery,
  NewWebhookDelivery,
  WebhookDeliveryPatch,
  WebhookDeliveryRow,
} from "../port/rows";
import { countWhere, type Executor, placeholders, selectById, selectPage } from "../query/query";

export type WebhookDeliveryRepository = ReturnType<typeof createWebhookDeliveryRepository>;

export function createWebhookDeliveryRepository({ read, write }: Executor) {
  return {
    insert: (row: NewWebhookDelivery) =>
      write(async ({ db, t }) => {
        await db.insert(t.webhookDeliveries).values(row);
      }),
    /** Inserts many, in order (one statement per few hundred on PostgreSQL). */
    insertMany: (rows: NewWebhookDelivery[]) =>
      write(async ({ db, t, dialect, prepared }) => {
        const d = t.webhookDeliveries;
        if (dialect.rowsPerInsert === 1) {
          // Every followed event's outbox rows go through this insert: prepared once.
          const insert = prepared("deliveries_insert", (q) =>
            q.db
              .insert(d)
              .values(placeholders(d, "seq", "claimedBy", "claimedUntil"))
              .prepare("deliveries_insert"),
          );
          for (const row of rows) await insert.all(row);
          return;
        }
        for (let i = 0; i < rows.length; i += dialect.rowsPerInsert) {
          await db.insert(d).values(rows.slice(i, i + dialect.rowsPerInsert));
        }
      }),
    get: (id: string) =>
      read((q) => selectById(q, "deliveries_by_id", (t) => t.webhookDeliveries, id)),
    /**
     * Due heads — the oldest pending delivery of each (webhook, stream), the only ones ever sent,
     * which keeps each stream in order — with their owners. At most `perOwner` per owner, spread
     * over the owner's webhooks; ordered so that every owner's first comes before any owner's
     * second (and within an owner, every webhook's first before any webhook's second), then
     * soonest due first.
     */
    dueHeads: (query: DueDeliveriesQuery) =>
      read(async ({ db, t, dialect }): Promise<DueDelivery[]> => {
        const d = t.webhookDeliveries;
        const picked = await dialect.rows<{ seq: number | string; owner_id: string }>(
          db,
          dueHeadsQuery({ deliveries: d, webhooks: t.webhooks }, query),
        );
        // PostgreSQL's int8 comes back as text.
        const heads = picked.map((p) => ({ seq: Number(p.seq), ownerId: p.owner_id }));
        if (heads.length === 0) return [];
        const seqs = heads.map((p) => p.seq);
        return inPickedOrder(heads, await db.select().from(d).where(inArray(d.seq, seqs)));
      }),
    /**
     * When the soonest head that is not due at `now` will be; null when there is none. A head
     * waits for its retry time and for another holder's claim to expire.
     */
    nextDueAt: (now: number) =>
      read(async ({ db, t, dialect }) => {
        const d = t.webhookDeliveries;
        const due = dialect.greatest(sql`dl.next_attempt_at`, sql`coalesce(dl.claimed_until, 0)`);
        const [next] = await dialect.rows<{ at: number | string | null }>(
          db,
          sql`with recursive ${pendingHeadsCte(d)}
            select min(${due}) as at from heads h join ${d} dl on dl.seq = h.seq
            where ${due} > ${now}`,
        );
        return next?.at === null || next?.at === undefined ? null : Number(next.at);
      }),
    /** How many deliveries are pending (due or waiting for a retry), for the queue-depth gauge. */
    countPending: () =>
      read(({ db, t }) => {
        const d = t.webhookDeliveries;
        return countWhere(db, d, eq(d.status, "pending"));
      }),
    /**
     * Claims pending deliveries for `holder` until `until`: answers the seqs it got, leaving out rows
     * that are no longer pending or that another holder's unexpired claim covers. PostgreSQL skips
     * rows another transaction has locked (`FOR UPDATE SKIP LOCKED`), so of two workers claiming the
     * same row at once exactly one gets it. `dueHeads` and `nextDueAt` pass over claimed rows until
     * their claim expires; an `update` that records an outcome clears the claim.
     */
    claim: (seqs: number[], holder: string, now: number, until: number) =>
      write(async ({ db, t, dialect }): Promise<number[]> => {
        if (seqs.length === 0) return [];
        const d = t.webhookDeliveries;
        const claimable = sql`select ${d.seq} from ${d} where ${and(
          inArray(d.seq, seqs),
          eq(d.status, "pending"),
          sql`(${d.claimedUntil} is null or ${d.claimedUntil} <= ${now})`,
        )} ${dialect.skipLocked}`;
        const rows = await db
          .update(d)
          .set({ claimedBy: holder, claimedUntil: until })
          .where(sql`${d.seq} in (${claimable})`)
          .returning({ seq: d.seq });
        return rows.map((row) => row.seq);
      }),
    /**
     * Up to `perStream` pending deliveries behind each of the `heads` (seqs): the same webhook and
     * stream, later seqs, each stream's oldest first. A worker that claimed a head may claim these
     * too and send them, in order, after it.
     */
    pendingBehind: (heads: number[], perStream: number) =>
      read(async ({ db, t, dialect }): Promise<WebhookDeliveryRow[]> => {
        if (heads.length === 0 || perStream <= 0) return [];
        const d = t.webhookDeliveries;
        const found = await dialect.rows<{ seq: number | string }>(
          db,
          pendingBehindQuery(d, heads, perStream),
        );
        // PostgreSQL's int8 comes back as text.
        const seqs = found.map((row) => Number(row.seq));
        if (seqs.length === 0) return [];
        return db.select().from(d).where(inArray(d.seq, seqs)).orderBy(d.seq);
      }),
    /** Records an attempt's outcome; the claim ends with it. */
    update: (seq: number, patch: WebhookDeliveryPatch) =>
      write(async ({ db, t }) => {
        const d = t.webhookDeliveries;
        await db
          .update(d)
          .set({ claimedBy: null, claimedUntil: null, ...patch })
          .where(eq(d.seq, seq));
      }),
    /**
     * Writes several rows' outcomes at once (one statement per thousand rows) and ends their
     * claims — of rows `holder` still claims only: a row whose claim another holder has taken since
     * is theirs to record.
     */
    recordOutcomes: (outcomes: DeliveryOutcome[], holder: string) =>
      write(async ({ db, t, dialect }) => {
        for (let i = 0; i < outcomes.length; i += OUTCOMES_PER_STATEMENT) {
          const chunk = outcomes.slice(i, i + OUTCOMES_PER_STATEMENT);
          await dialect.run(db, recordOutcomesStatement(t.webhookDeliveries, chunk, holder));
        }
      }),
    /** A webhook's deliveries, newest first. */
    search: (filter: DeliveryFilter, page: PageRequest) =>
      read(({ db, t }) => {
        const d = t.webhookDeliveries;
        const matching = and(
          eq(d.webhookId, filter.webhookId),
          filter.status ? eq(d.status, filter.status) : undefined,
        );
        return selectPage(db, d, matching, { sort: d.seq, direction: "desc" }, page);
      }),
  };
}

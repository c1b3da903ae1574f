import { and, eq, inArray, sql } from "drizzle-orm";
import {
  dueHeadsQuery,
  inPickedOrder,
  OUTCOMES_PER_STATEMENT,
  pendingBehindQuery,
  pendingHeadsCte,
  recordOutcomesStatement,
} from "../due-deliveries";
import type { WebhookDeliveryRepository } from "../port/repositories";
import type { NewWebhookDelivery, WebhookDeliveryRow } from "../port/rows";
import { countWhere, type Executor, placeholders, selectPage } from "../query/query";

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

export function createWebhookDeliveryRepository({
  read,
  write,
}: Executor): WebhookDeliveryRepository {
  return {
    insert: (row) =>
      write(async ({ db, t }) => {
        await db.insert(t.webhookDeliveries).values(row);
      }),
    insertMany: (rows) =>
      write(async ({ db, t, dialect, prepared }) => {
        const d = t.webhookDeliveries;
        if (dialect.rowsPerInsert === 1) {
          // Every followed event's outbox rows go through this insert: prepared once.
          const insert = prepared("deliveries_insert", (q) =>
            q.db.insert(d).values(placeholders(COLUMNS)).prepare("deliveries_insert"),
          );
          for (const row of rows) await insert.all(row);
          return;
        }
        for (let i = 0; i < rows.length; i += dialect.rowsPerInsert) {
          await db.insert(d).values(rows.slice(i, i + dialect.rowsPerInsert));
        }
      }),
    get: (id) =>
      read(async ({ db, t }) => {
        const d = t.webhookDeliveries;
        const [row] = await db.select().from(d).where(eq(d.id, id));
        return row;
      }),
    /** See the port (`WebhookDeliveryRepository.dueHeads`). */
    dueHeads: (query) =>
      read(async ({ db, t, dialect }) => {
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
    /** A head waits for its retry time and for another holder's claim to expire. */
    nextDueAt: (now) =>
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
    countPending: () =>
      read(({ db, t }) => {
        const d = t.webhookDeliveries;
        return countWhere(db, d, eq(d.status, "pending"));
      }),
    /**
     * Of the rows asked for, those pending and not under another holder's unexpired claim; on
     * PostgreSQL a row another worker is claiming right now is left to it, not waited for.
     */
    claim: (seqs, holder, now, until) =>
      write(async ({ db, t, dialect }) => {
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
    pendingBehind: (heads, perStream) =>
      read(async ({ db, t, dialect }) => {
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
    update: (seq, patch) =>
      write(async ({ db, t }) => {
        const d = t.webhookDeliveries;
        await db
          .update(d)
          .set({ claimedBy: null, claimedUntil: null, ...patch })
          .where(eq(d.seq, seq));
      }),
    recordOutcomes: (outcomes, holder) =>
      write(async ({ db, t, dialect }) => {
        for (let i = 0; i < outcomes.length; i += OUTCOMES_PER_STATEMENT) {
          const chunk = outcomes.slice(i, i + OUTCOMES_PER_STATEMENT);
          await dialect.run(db, recordOutcomesStatement(t.webhookDeliveries, chunk, holder));
        }
      }),
    search: (filter, page) =>
      read(({ db, t }) => {
        const d = t.webhookDeliveries;
        const matching = and(
          eq(d.webhookId, filter.webhookId),
          filter.status ? eq(d.status, filter.status) : undefined,
        );
        const key = {
          sort: d.seq,
          direction: "desc",
          value: (r: WebhookDeliveryRow) => r.seq,
        } as const;
        return selectPage(db, d, matching, key, page);
      }),
  };
}

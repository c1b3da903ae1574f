import { and, count, eq, inArray, sql } from "drizzle-orm";
import * as batches from "../../due-deliveries";
import { dueHeadsQuery, inPickedOrder, pendingHeadsCte } from "../../due-deliveries";
import { keyset, toPage } from "../../paging";
import type { WebhookDeliveryRepository } from "../../port/repositories";
import type { DueDelivery } from "../../port/rows";
import type { PgExecutor } from "../client";
import { webhookDeliveries as d, webhooks } from "../schema";

/** Rows per multi-row insert: fourteen parameters each, far below PostgreSQL's limit. */
const ROWS_PER_INSERT = 500;

export function createWebhookDeliveryRepository({ run }: PgExecutor) {
  return {
    insert: (row) =>
      run(async (db) => {
        await db.insert(d).values(row);
      }),
    insertMany: (rows) =>
      run(async (db) => {
        for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
          await db.insert(d).values(rows.slice(i, i + ROWS_PER_INSERT));
        }
      }),
    get: (id) =>
      run(async (db) => {
        const [row] = await db.select().from(d).where(eq(d.id, id));
        return row;
      }),
    /** See the port (`WebhookDeliveryRepository.dueHeads`); the same query as SQLite's. */
    dueHeads: (query) =>
      run(async (db): Promise<DueDelivery[]> => {
        const picked = await db.execute<{ seq: string; owner_id: string }>(
          dueHeadsQuery({ deliveries: d, webhooks }, query),
        );
        // int8 comes back from node-postgres as text.
        const heads = picked.rows.map((p) => ({ seq: Number(p.seq), ownerId: p.owner_id }));
        if (heads.length === 0) return [];
        const rows = await db
          .select()
          .from(d)
          .where(
            inArray(
              d.seq,
              heads.map((p) => p.seq),
            ),
          );
        return inPickedOrder(heads, rows);
      }),
    /** A head waits for its retry time and for another holder's claim to expire. */
    nextDueAt: (now) =>
      run(async (db) => {
        const next = await db.execute<{ at: string | null }>(sql`
          with recursive ${pendingHeadsCte(d)}
          select min(greatest(dl.next_attempt_at, coalesce(dl.claimed_until, 0))) as at
          from heads h join ${d} dl on dl.seq = h.seq
          where greatest(dl.next_attempt_at, coalesce(dl.claimed_until, 0)) > ${now}`);
        const at = next.rows[0]?.at;
        return at === null || at === undefined ? null : Number(at);
      }),
    countPending: () =>
      run(async (db) => {
        const [row] = await db.select({ n: count() }).from(d).where(eq(d.status, "pending"));
        return row?.n ?? 0;
      }),
    /**
     * `FOR UPDATE SKIP LOCKED`: a row another worker is claiming right now is left to it rather
     * than waited for; one it claimed before (unexpired) is left out by the condition.
     */
    claim: (seqs, holder, now, until) =>
      run(async (db) => {
        if (seqs.length === 0) return [];
        const claimed = await db.execute<{ seq: string }>(sql`
          update ${d} set claimed_by = ${holder}, claimed_until = ${until}
          where seq in (
            select seq from ${d}
            where seq in (${sql.join(
              seqs.map((seq) => sql`${seq}`),
              sql`, `,
            )})
              and status = 'pending'
              and (claimed_until is null or claimed_until <= ${now})
            for update skip locked
          )
          returning seq`);
        return claimed.rows.map((row) => Number(row.seq));
      }),
    pendingBehind: (heads, perStream) =>
      run(async (db) => {
        if (heads.length === 0 || perStream <= 0) return [];
        const found = await db.execute<{ seq: string }>(
          batches.pendingBehindQuery(d, heads, perStream),
        );
        // int8 comes back from node-postgres as text.
        const seqs = found.rows.map((row) => Number(row.seq));
        if (seqs.length === 0) return [];
        return db.select().from(d).where(inArray(d.seq, seqs)).orderBy(d.seq);
      }),
    /** Records an attempt's outcome; the claim ends with it. */
    update: (seq, patch) =>
      run(async (db) => {
        await db
          .update(d)
          .set({ claimedBy: null, claimedUntil: null, ...patch })
          .where(eq(d.seq, seq));
      }),
    recordOutcomes: (outcomes, holder) =>
      run(async (db) => {
        for (let i = 0; i < outcomes.length; i += batches.OUTCOMES_PER_STATEMENT) {
          const chunk = outcomes.slice(i, i + batches.OUTCOMES_PER_STATEMENT);
          await db.execute(batches.recordOutcomesStatement(d, chunk, holder));
        }
      }),
    search: (filter, page) =>
      run(async (db) => {
        const { where, orderBy } = keyset(d.seq, d.id, "desc", page.pageId);
        const rows = await db
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
          .limit(page.limit + 1);
        return toPage(rows, page.limit, (r) => r.seq);
      }),
  } satisfies WebhookDeliveryRepository & { countPending(): Promise<number> };
}

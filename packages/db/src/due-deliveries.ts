import { type SQL, type SQLWrapper, sql } from "drizzle-orm";
import type {
  DeliveryOutcome,
  DueDeliveriesQuery,
  DueDelivery,
  WebhookDeliveryRow,
} from "./port/rows";

/** `and <column> not in (…)`, or nothing for no values. */
function notIn(column: SQL, values: (string | number)[]): SQL {
  if (values.length === 0) return sql``;
  return sql`and ${column} not in (${sql.join(
    values.map((v) => sql`${v}`),
    sql`, `,
  )})`;
}

/**
 * `heads(seq, webhook_id, stream)`: the oldest pending delivery of each webhook and stream, as the
 * first common table expression of a `with recursive`. A loose index scan over
 * `webhook_deliveries_pending_idx`: each step seeks the next (webhook, stream) after the last one,
 * so the cost grows with the number of streams, not with the backlog (a `group by` over the
 * pending rows reads every one of them, on every look at the outbox).
 */
export function pendingHeadsCte(deliveries: SQLWrapper): SQL {
  return sql`heads(seq, webhook_id, stream) as (
      select * from (
        select seq, webhook_id, stream from ${deliveries} where status = 'pending'
        order by status, webhook_id, stream, seq limit 1
      ) first_head
      union all
      select n.seq, n.webhook_id, n.stream from heads h join ${deliveries} n on n.seq = coalesce(
        (select seq from ${deliveries} where status = 'pending' and webhook_id = h.webhook_id
          and stream > h.stream order by status, webhook_id, stream, seq limit 1),
        (select seq from ${deliveries} where status = 'pending' and webhook_id > h.webhook_id
          order by status, webhook_id, stream, seq limit 1)
      )
    )`;
}

/**
 * The due heads' `seq` and owner, in the order they are to be sent: the one query both adapters
 * run (`WebhookDeliveryRepository.dueHeads`). Heads first (the oldest pending delivery of each
 * webhook and stream), then each due, unclaimed head ranked within its webhook and, by that rank,
 * within its owner: ordering by the owner rank goes round-robin over owners and their webhooks.
 */
export function dueHeadsQuery(
  tables: { deliveries: SQLWrapper; webhooks: SQLWrapper },
  query: DueDeliveriesQuery,
): SQL {
  const { deliveries, webhooks } = tables;
  return sql`
    with recursive ${pendingHeadsCte(deliveries)}, due as (
      select dl.seq, dl.next_attempt_at, w.owner_id, row_number() over (
        partition by dl.webhook_id order by dl.next_attempt_at, dl.seq
      ) as webhook_rank
      from heads h
      join ${deliveries} dl on dl.seq = h.seq
      join ${webhooks} w on w.id = dl.webhook_id
      where dl.next_attempt_at <= ${query.now}
        and (dl.claimed_until is null or dl.claimed_until <= ${query.now})
        ${notIn(sql`dl.seq`, query.excludeSeqs)}
        ${notIn(sql`w.owner_id`, query.excludeOwners)}
    ), ranked as (
      select seq, owner_id, next_attempt_at, row_number() over (
        partition by owner_id order by webhook_rank, next_attempt_at, seq
      ) as owner_rank
      from due
    )
    select seq, owner_id from ranked
    where owner_rank <= ${query.perOwner}
    order by owner_rank, next_attempt_at, seq
    limit ${query.limit}`;
}

/** The picked heads' rows, in the picked order, each with its owner. */
export function inPickedOrder(
  picked: { seq: number; ownerId: string }[],
  rows: WebhookDeliveryRow[],
): DueDelivery[] {
  const bySeq = new Map(rows.map((row) => [row.seq, row]));
  return picked.flatMap((p) => {
    const row = bySeq.get(p.seq);
    return row ? [{ ...row, ownerId: p.ownerId }] : [];
  });
}

/**
 * The seqs of up to `perStream` pending deliveries behind each head (`WebhookDeliveryRepository.
 * pendingBehind`). Each stream's rows are a range of `webhook_deliveries_pending_idx` bounded by
 * its `perStream`-th row, so the cost follows `perStream`, not the stream's backlog.
 */
export function pendingBehindQuery(
  deliveries: SQLWrapper,
  heads: number[],
  perStream: number,
): SQL {
  return sql`
    select t.seq from ${deliveries} h join ${deliveries} t
      on t.status = 'pending' and t.webhook_id = h.webhook_id and t.stream = h.stream
      and t.seq > h.seq and t.seq <= coalesce((
        select x.seq from ${deliveries} x
        where x.status = 'pending' and x.webhook_id = h.webhook_id and x.stream = h.stream
          and x.seq > h.seq
        order by x.status, x.webhook_id, x.stream, x.seq limit 1 offset ${perStream - 1}
      ), ${Number.MAX_SAFE_INTEGER})
    where h.seq in (${sql.join(
      heads.map((seq) => sql`${seq}`),
      sql`, `,
    )})
    order by t.seq`;
}

/** Rows per outcomes statement: 8 parameters each, well under either database's limit. */
export const OUTCOMES_PER_STATEMENT = 1_000;

/**
 * One `update … from (values …)` writing `outcomes` (at most `OUTCOMES_PER_STATEMENT`) and ending
 * their claims, on rows `holder` still claims; the same text on SQLite and PostgreSQL (values'
 * columns are `column1`… on both; the casts type PostgreSQL's parameters).
 */
export function recordOutcomesStatement(
  deliveries: SQLWrapper,
  outcomes: DeliveryOutcome[],
  holder: string,
): SQL {
  const values = outcomes.map(
    (o) => sql`(cast(${o.seq} as bigint), cast(${o.status} as text), cast(${o.attempts} as bigint),
      cast(${o.nextAttemptAt} as bigint), cast(${o.lastStatusCode} as bigint),
      cast(${o.lastError} as text), cast(${o.completedAt} as bigint), cast(${o.updatedAt} as bigint))`,
  );
  return sql`
    update ${deliveries} set status = v.column2, attempts = v.column3, next_attempt_at = v.column4,
      last_status_code = v.column5, last_error = v.column6, completed_at = v.column7,
      updated_at = v.column8, claimed_by = null, claimed_until = null
    from (values ${sql.join(values, sql`, `)}) as v
    where ${deliveries}.seq = v.column1 and ${deliveries}.claimed_by = ${holder}`;
}

import { eq, sql } from "drizzle-orm";
import type { LeaseRepository } from "../../port/repositories";
import type { PgExecutor } from "../client";
import { leases } from "../schema";

/** The database's clock in epoch milliseconds: replicas' clocks may disagree, the server's is one. */
const dbNow = sql`(extract(epoch from clock_timestamp()) * 1000)::bigint`;

/**
 * Leases on PostgreSQL: one upsert takes a lease that is free, expired or the holder's own (a
 * renewal); times are the database server's, so clock skew between replicas cannot hand a lease
 * to two of them. `clock` (epoch ms) replaces the server's where a test moves a fake one.
 */
export function createLeaseRepository({ run }: PgExecutor, clock?: () => number): LeaseRepository {
  const now = () => (clock ? sql`${Math.round(clock())}::bigint` : dbNow);
  return {
    acquire: (name, holder, ttlMs) =>
      run(async (db) => {
        const ttl = Math.max(1, Math.round(ttlMs));
        const rows = await db
          .insert(leases)
          .values({
            name,
            holder,
            acquiredAt: sql`${now()}`,
            expiresAt: sql`${now()} + ${ttl}::bigint`,
          })
          .onConflictDoUpdate({
            target: leases.name,
            set: {
              holder: sql`excluded.holder`,
              expiresAt: sql`excluded.expires_at`,
              acquiredAt: sql`case when ${leases.holder} = excluded.holder then ${leases.acquiredAt} else excluded.acquired_at end`,
            },
            setWhere: sql`${leases.holder} = excluded.holder or ${leases.expiresAt} <= excluded.acquired_at`,
          })
          .returning({ holder: leases.holder });
        return rows.length > 0;
      }),
    release: (name, holder) =>
      run(async (db) => {
        await db
          .delete(leases)
          .where(sql`${leases.name} = ${name} and ${leases.holder} = ${holder}`);
      }),
    get: (name) =>
      run(async (db) => {
        const [row] = await db.select().from(leases).where(eq(leases.name, name));
        return row;
      }),
    listLive: (prefix) =>
      run(async (db) =>
        db
          .select()
          .from(leases)
          .where(
            sql`left(${leases.name}, ${prefix.length}) = ${prefix} and ${leases.expiresAt} > ${now()}`,
          )
          .orderBy(sql`${leases.name} collate "C"`),
      ),
  };
}

import { eq, sql } from "drizzle-orm";
import type { LeaseRepository } from "../port/repositories";
import type { Executor } from "../query/query";

/**
 * Leases: one upsert takes a lease that is free, expired or the holder's own (a renewal). Times
 * are the dialect's clock (`Dialect.now`): on PostgreSQL the server's, so clock skew between
 * replicas cannot hand a lease to two of them.
 */
export function createLeaseRepository({ read, write }: Executor): LeaseRepository {
  return {
    acquire: (name, holder, ttlMs) =>
      write(async ({ db, t, dialect }) => {
        const l = t.leases;
        const ttl = Math.max(1, Math.round(ttlMs));
        const now = dialect.now();
        const rows = await db
          .insert(l)
          .values({
            name,
            holder,
            acquiredAt: now,
            expiresAt: sql`${now} + ${dialect.typed(ttl, "bigint")}`,
          })
          .onConflictDoUpdate({
            target: l.name,
            set: {
              holder: sql`excluded.holder`,
              expiresAt: sql`excluded.expires_at`,
              acquiredAt: sql`case when ${l.holder} = excluded.holder then ${l.acquiredAt} else excluded.acquired_at end`,
            },
            setWhere: sql`${l.holder} = excluded.holder or ${l.expiresAt} <= excluded.acquired_at`,
          })
          .returning({ holder: l.holder });
        return rows.length > 0;
      }),
    release: (name, holder) =>
      write(async ({ db, t }) => {
        await db
          .delete(t.leases)
          .where(sql`${t.leases.name} = ${name} and ${t.leases.holder} = ${holder}`);
      }),
    get: (name) =>
      read(async ({ db, t }) => {
        const [row] = await db.select().from(t.leases).where(eq(t.leases.name, name));
        return row;
      }),
    listLive: (prefix) =>
      read(({ db, t, dialect }) =>
        db
          .select()
          .from(t.leases)
          .where(
            sql`substr(${t.leases.name}, 1, ${prefix.length}) = ${prefix} and ${t.leases.expiresAt} > ${dialect.now()}`,
          )
          .orderBy(dialect.bytewise(t.leases.name)),
      ),
  };
}

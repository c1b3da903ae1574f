import { eq, sql } from "drizzle-orm";
import { type Executor, first } from "../query/query";

export type LeaseRepository = ReturnType<typeof createLeaseRepository>;

/**
 * Leases held by control-plane replicas (see `LeaseRow`): one upsert takes a lease that is free,
 * expired or the holder's own (a renewal). Times are the dialect's clock (`Dialect.now`): on
 * PostgreSQL the server's, so the replicas' clocks need not agree and clock skew cannot hand a
 * lease to two of them.
 */
export function createLeaseRepository({ read, write }: Executor) {
  return {
    /**
     * Takes the lease for `holder` until `ttlMs` from now when it is free, expired or already
     * `holder`'s (a renewal); true when `holder` holds it after the call.
     */
    acquire: (name: string, holder: string, ttlMs: number) =>
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
    /** Gives the lease up, if `holder` holds it (anyone may take it at once). */
    release: (name: string, holder: string) =>
      write(async ({ db, t }) => {
        await db
          .delete(t.leases)
          .where(sql`${t.leases.name} = ${name} and ${t.leases.holder} = ${holder}`);
      }),
    /** The lease as stored (expired or not). */
    get: (name: string) =>
      read(({ db, t }) => first(db.select().from(t.leases).where(eq(t.leases.name, name)))),
    /** Unexpired leases whose name starts with `prefix`, by name. */
    listLive: (prefix: string) =>
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

import { eq, gt, sql } from "drizzle-orm";
import type { LeaseRow } from "../../port/rows";
import { leases } from "../../schema";
import type { Db } from "../client";

/**
 * Leases on SQLite: one process uses the file, so the process's clock (`now`, epoch ms) is the
 * clock. The same upsert as PostgreSQL's: taken when free, expired or the holder's own (a renewal).
 */
export function createLeaseRepository(db: Db, clock: () => number = Date.now) {
  return {
    acquire(name: string, holder: string, ttlMs: number): boolean {
      const now = clock();
      const row = db
        .insert(leases)
        .values({ name, holder, acquiredAt: now, expiresAt: now + ttlMs })
        .onConflictDoUpdate({
          target: leases.name,
          set: {
            holder: sql`excluded.holder`,
            expiresAt: sql`excluded.expires_at`,
            acquiredAt: sql`case when ${leases.holder} = excluded.holder then ${leases.acquiredAt} else excluded.acquired_at end`,
          },
          setWhere: sql`${leases.holder} = excluded.holder or ${leases.expiresAt} <= excluded.acquired_at`,
        })
        .returning({ holder: leases.holder })
        .get();
      return row !== undefined;
    },
    release(name: string, holder: string): void {
      db.delete(leases).where(sql`${leases.name} = ${name} and ${leases.holder} = ${holder}`).run();
    },
    get(name: string): LeaseRow | undefined {
      return db.select().from(leases).where(eq(leases.name, name)).get();
    },
    listLive(prefix: string): LeaseRow[] {
      return db
        .select()
        .from(leases)
        .where(
          sql`substr(${leases.name}, 1, ${prefix.length}) = ${prefix} and ${gt(leases.expiresAt, clock())}`,
        )
        .orderBy(leases.name)
        .all();
    },
  };
}

import { fileURLToPath } from "node:url";
import { drizzle } from "drizzle-orm/node-postgres";
import { migrate } from "drizzle-orm/node-postgres/migrator";
import type pg from "pg";
import { sealingStatements } from "../secrets/plan-sealing";
import type { SecretBox } from "../secrets/secret-box";
import * as schema from "../tables/pg";

export const defaultPgMigrationsFolder = fileURLToPath(
  new URL("../../drizzle-pg", import.meta.url),
);

/** Session-level advisory lock held while one replica migrates and seals (others wait). */
const OPEN_LOCK = 7_251_001;

/**
 * What opening the store does, on one client, under an advisory lock so that replicas starting
 * together take turns: applies the committed migrations, then runs `sealingStatements` in one
 * transaction (rolled back when they throw: a wrong key or an unreadable value).
 */
export async function prepareDatabase(
  client: pg.PoolClient,
  box: SecretBox,
  migrationsFolder: string,
): Promise<void> {
  await client.query("SELECT pg_advisory_lock($1)", [OPEN_LOCK]);
  try {
    await migrate(drizzle(client, { schema }), { migrationsFolder });
    await client.query("BEGIN");
    try {
      const statements = sealingStatements(box, " FOR UPDATE");
      let next = statements.next([]);
      while (!next.done) {
        let n = 0;
        const sql = next.value.sql.replace(/\?/g, () => `$${++n}`);
        next = statements.next((await client.query(sql, next.value.params)).rows);
      }
      await client.query("COMMIT");
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw error;
    }
  } finally {
    await client.query("SELECT pg_advisory_unlock($1)", [OPEN_LOCK]).catch(() => undefined);
  }
}

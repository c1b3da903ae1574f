import { fileURLToPath } from "node:url";
import { drizzle } from "drizzle-orm/node-postgres";
import { migrate } from "drizzle-orm/node-postgres/migrator";
import type pg from "pg";
import { assertKeyCheck, KEY_CHECK_ID } from "../secrets/key-check";
import { planSealing, type StoredSecret } from "../secrets/plan-sealing";
import type { SecretBox } from "../secrets/secret-box";
import { secretColumns } from "../secrets/secret-rows";
import * as schema from "../tables/pg";

export const defaultPgMigrationsFolder = fileURLToPath(
  new URL("../../drizzle-pg", import.meta.url),
);

/** Session-level advisory lock held while one replica migrates and seals (others wait). */
const OPEN_LOCK = 7_251_001;

/**
 * What opening the store does, on one client, under an advisory lock so that replicas starting
 * together take turns: applies the committed migrations, then — in one transaction — seals every
 * secret still stored in plain text, checks that the sealed ones open with `box`'s key
 * (`planSealing`: a wrong key or an unreadable value throws, and nothing is written) and records
 * the key's check value, or checks it against the one recorded by the first start.
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
      const stored: StoredSecret[] = [];
      for (const { table, column } of secretColumns) {
        const rows = await client.query<{ id: string; value: string }>(
          `SELECT id, ${column} AS value FROM ${table} FOR UPDATE`,
        );
        for (const row of rows.rows) stored.push({ table, column, id: row.id, value: row.value });
      }
      const sealings = planSealing(stored, box);
      await client.query(
        "INSERT INTO secrets_key_check (id, check_value, created_at) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING",
        [KEY_CHECK_ID, box.checkValue(), Date.now()],
      );
      const recorded = await client.query<{ value: string }>(
        "SELECT check_value AS value FROM secrets_key_check WHERE id = $1",
        [KEY_CHECK_ID],
      );
      assertKeyCheck(recorded.rows[0]?.value, box);
      for (const { table, column, id, sealed } of sealings) {
        await client.query(`UPDATE ${table} SET ${column} = $1 WHERE id = $2`, [sealed, id]);
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

import type Database from "better-sqlite3";
import { assertKeyCheck, KEY_CHECK_ID } from "../secrets/key-check";
import { planSealing, type StoredSecret } from "../secrets/plan-sealing";
import type { SecretBox } from "../secrets/secret-box";
import { secretColumns } from "../secrets/secret-rows";

/**
 * Run once when the store opens, in one transaction: seals every secret still stored in plain text,
 * checks that every sealed one opens with `box`'s key and that the key is the one the database was
 * first opened with (its check value, recorded by that first start). Idempotent: a second pass finds nothing
 * to seal. On a wrong key or an unreadable value it throws and writes nothing.
 *
 * @returns how many values it sealed.
 */
export function sealStoredSecrets(sqlite: Database.Database, box: SecretBox): number {
  return sqlite
    .transaction(() => {
      const stored: StoredSecret[] = [];
      const updates = new Map<string, Database.Statement>();
      for (const { table, column } of secretColumns) {
        updates.set(table, sqlite.prepare(`UPDATE ${table} SET ${column} = ? WHERE id = ?`));
        const rows = sqlite.prepare(`SELECT id, ${column} AS value FROM ${table}`).all() as {
          id: string;
          value: string;
        }[];
        for (const row of rows) stored.push({ table, column, id: row.id, value: row.value });
      }
      const sealings = planSealing(stored, box);
      sqlite
        .prepare(
          "INSERT INTO secrets_key_check (id, check_value, created_at) VALUES (?, ?, ?) ON CONFLICT (id) DO NOTHING",
        )
        .run(KEY_CHECK_ID, box.checkValue(), Date.now());
      const recorded = sqlite
        .prepare("SELECT check_value AS value FROM secrets_key_check WHERE id = ?")
        .get(KEY_CHECK_ID) as { value: string } | undefined;
      assertKeyCheck(recorded?.value, box);
      for (const { table, id, sealed } of sealings) updates.get(table)?.run(sealed, id);
      return sealings.length;
    })
    .immediate();
}

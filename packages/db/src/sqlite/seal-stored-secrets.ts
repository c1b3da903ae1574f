import type Database from "better-sqlite3";
import { planSealing, type StoredSecret } from "../secrets/plan-sealing";
import type { SecretBox } from "../secrets/secret-box";
import { secretColumns } from "../secrets/secret-rows";

/**
 * Run once when the store opens, in one transaction: seals every secret still stored in plain text
 * and checks that every sealed one opens with `box`'s key. Idempotent: a second pass finds nothing
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
      for (const { table, id, sealed } of sealings) updates.get(table)?.run(sealed, id);
      return sealings.length;
    })
    .immediate();
}

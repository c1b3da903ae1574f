import type Database from "better-sqlite3";
import { sealingStatements } from "../secrets/plan-sealing";
import type { SecretBox } from "../secrets/secret-box";

/**
 * Run once when the store opens: `sealingStatements` in one `BEGIN IMMEDIATE` transaction. On a
 * wrong key or an unreadable value it throws and writes nothing. Returns how many values it sealed.
 */
export function sealStoredSecrets(sqlite: Database.Database, box: SecretBox): number {
  const seal = sqlite.transaction(() => {
    const statements = sealingStatements(box, "");
    let next = statements.next([]);
    while (!next.done) {
      const { sql, params } = next.value;
      const statement = sqlite.prepare(sql);
      if (!statement.reader) statement.run(...params);
      const rows = statement.reader ? statement.all(...params) : [];
      next = statements.next(rows as Record<string, unknown>[]);
    }
    return next.value;
  });
  return seal.immediate();
}

import {
  isSealed,
  type SecretBox,
  SecretsKeyMismatchError,
  SecretUnreadableError,
} from "./secret-box";
import { secretColumns, secretContext } from "./secret-rows";

/** One stored secret as the database holds it. */
export interface StoredSecret {
  table: string;
  column: string;
  id: string;
  value: string;
}

/** A plain text value and what to write in its place. */
export interface Sealing extends StoredSecret {
  sealed: string;
}

/** How many unreadable places an error names; the count says how many there are. */
const NAMED = 5;

/** The one row of `secrets_key_check`. */
const KEY_CHECK_ID = "secrets-key";

/** A statement for the adapter to run, with `?` for each of `params`; it answers with its rows. */
export interface SealingStatement {
  sql: string;
  params: unknown[];
}

/**
 * What opening a store does to its secrets, written once for both adapters as the statements to
 * run in one transaction: the adapter runs each statement it is handed and hands back its rows.
 * Seals every secret still stored in plain text, checks that every sealed one opens with `box`'s
 * key (`planSealing`) and records the key's check value, or checks it against the one the first
 * start recorded (an insert-if-absent, then a read, so of two replicas opening a fresh database
 * with different keys exactly one passes). On a wrong key or an unreadable value it throws before
 * it writes a secret, and the adapter rolls back. `lockRows` ends each select of the secrets
 * (PostgreSQL: `FOR UPDATE`). Returns how many values it sealed.
 */
export function* sealingStatements(
  box: SecretBox,
  lockRows: string,
): Generator<SealingStatement, number, Record<string, unknown>[]> {
  const stored: StoredSecret[] = [];
  for (const { table, column } of secretColumns) {
    const rows = yield {
      sql: `SELECT id, ${column} AS value FROM ${table}${lockRows}`,
      params: [],
    };
    for (const { id, value } of rows) {
      stored.push({ table, column, id: `${id}`, value: `${value}` });
    }
  }
  const sealings = planSealing(stored, box);
  yield {
    sql: "INSERT INTO secrets_key_check (id, check_value, created_at) VALUES (?, ?, ?) ON CONFLICT (id) DO NOTHING",
    params: [KEY_CHECK_ID, box.checkValue(), Date.now()],
  };
  const [recorded] = yield {
    sql: "SELECT check_value FROM secrets_key_check WHERE id = ?",
    params: [KEY_CHECK_ID],
  };
  if (recorded !== undefined && recorded.check_value !== box.checkValue()) {
    throw new SecretsKeyMismatchError(
      "this database was first opened with another secrets key (its key check value differs)",
    );
  }
  for (const { table, column, id, sealed } of sealings) {
    yield { sql: `UPDATE ${table} SET ${column} = ? WHERE id = ?`, params: [sealed, id] };
  }
  return sealings.length;
}

/**
 * The start-up pass over every stored secret, for any adapter: plain text values (written before
 * encryption existed) get sealed; sealed ones must open with this key. Throws
 * `SecretsKeyMismatchError` when none of the sealed values opens (another key) and
 * `SecretUnreadableError` when only some do (altered or damaged rows); the caller then writes
 * nothing.
 */
export function planSealing(stored: Iterable<StoredSecret>, box: SecretBox): Sealing[] {
  const sealings: Sealing[] = [];
  const unreadable: string[] = [];
  let readable = 0;
  for (const secret of stored) {
    const context = secretContext(secret.table, secret.column, secret.id);
    if (!isSealed(secret.value)) {
      sealings.push({ ...secret, sealed: box.seal(secret.value, context) });
      continue;
    }
    try {
      box.open(secret.value, context);
      readable++;
    } catch (error) {
      if (!(error instanceof SecretUnreadableError)) throw error;
      unreadable.push(`${secret.table}/${secret.id}`);
    }
  }
  if (unreadable.length === 0) return sealings;
  if (readable === 0) {
    const which =
      unreadable.length === 1
        ? "the one encrypted secret in the database does not decrypt"
        : `none of the ${unreadable.length} encrypted secrets in the database decrypts`;
    throw new SecretsKeyMismatchError(
      `${which} with this key: the database was written with another key`,
    );
  }
  const more = unreadable.length > NAMED ? ` and ${unreadable.length - NAMED} more` : "";
  throw new SecretUnreadableError(
    `${unreadable.length} of the ${unreadable.length + readable} encrypted secrets in the database do not decrypt (altered or damaged): ${unreadable.slice(0, NAMED).join(", ")}${more}`,
  );
}

import {
  isSealed,
  type SecretBox,
  SecretsKeyMismatchError,
  SecretUnreadableError,
} from "./secret-box";
import { secretContext } from "./secret-rows";

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

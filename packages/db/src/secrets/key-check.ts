import { type SecretBox, SecretsKeyMismatchError } from "./secret-box";

/** The one row of `secrets_key_check`. */
export const KEY_CHECK_ID = "secrets-key";

/**
 * The start-up check of the key against the database's record, for any adapter: `recorded` is
 * the check value stored (after an insert-if-absent of this key's, in the same transaction), so
 * of two replicas starting with different keys on a fresh database exactly one passes.
 */
export function assertKeyCheck(recorded: string | undefined, box: SecretBox): void {
  if (recorded === undefined || recorded === box.checkValue()) return;
  throw new SecretsKeyMismatchError(
    "this database was first opened with another secrets key (its key check value differs)",
  );
}

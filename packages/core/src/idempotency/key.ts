import { AppError } from "../errors";

/** What the `Idempotency-Key` header may hold: 1–255 printable ASCII characters. */
const KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;

/** The `Idempotency-Key` header as sent (null when absent); checked by the middleware, on creates. */
export function idempotencyKeyFromHeaders(
  headers: Record<string, string | string[] | undefined>,
): string | null {
  const header = headers["idempotency-key"];
  if (header === undefined) return null;
  return Array.isArray(header) ? header.join(", ") : header;
}

/** The key, or 422 when it is empty, longer than 255 or not printable ASCII. */
export function checkIdempotencyKey(key: string): string {
  if (KEY_PATTERN.test(key)) return key;
  throw new AppError(
    "VALIDATION_FAILED",
    "Idempotency-Key must be 1-255 printable ASCII characters",
    {
      issues: [{ path: ["Idempotency-Key"], message: "must be 1-255 printable ASCII characters" }],
    },
  );
}

/** Per request: the key presented, and whether the answer is a replay (the adapters set a header). */
export interface IdempotencyState {
  key: string | null;
  replayed: boolean;
  /** The key's record while this request runs the create (a create may note it on its task). */
  recordId?: string | null;
  /**
   * Set by a create that stored its answer under the record itself, with what it recorded (a
   * conversation's): there is nothing left to store.
   */
  answered?: boolean;
}

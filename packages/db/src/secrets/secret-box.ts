import {
  createCipheriv,
  createDecipheriv,
  createHmac,
  createSecretKey,
  type KeyObject,
  randomBytes,
} from "node:crypto";

/** How every sealed value starts: the scheme and its version, so a later scheme can sit beside it. */
export const SEALED_PREFIX = "enc:v1:";
/** AES-256: the key is 32 bytes. */
export const SECRET_KEY_BYTES = 32;
const ALGORITHM = "aes-256-gcm";
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** Opened values remembered: send-message reads its sandbox's key on every message. */
const OPENED_CACHE_SIZE = 1024;
const KEY_CHECK_INPUT = "sandbox-server secrets key check v1";

/**
 * Encrypts the secrets the store keeps (session keys, webhook secrets) so the database file never
 * holds them in plain text. Every adapter of the store uses the same box, so a value sealed by one
 * reads in another.
 *
 * `context` names the value's place (`sandboxes.session_api_key:sb_…`) and is authenticated with
 * it: a sealed value copied into another row or column does not open there.
 */
export interface SecretBox {
  /** AES-256-GCM with a fresh random 12-byte IV: `enc:v1:<base64url(iv | ciphertext | tag)>`. */
  seal(plaintext: string, context: string): string;
  /** The plaintext of a sealed value; `SecretUnreadableError` when key, context or bytes differ. */
  open(sealed: string, context: string): string;
  /**
   * HMAC-SHA256 of a constant under the key (hex): what the database records of the key, so a
   * start with another key is refused before anything is sealed with it. Reveals nothing of it.
   */
  checkValue(): string;
}

/** Whether a stored value is sealed (rather than a plain text value written before encryption). */
export function isSealed(value: string): boolean {
  return value.startsWith(SEALED_PREFIX);
}

/**
 * A stored secret does not decrypt: another key, another place, or altered bytes. The message names
 * the place, never the value.
 */
export class SecretUnreadableError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "SecretUnreadableError";
  }
}

/**
 * The database holds sealed secrets and none of them decrypts with the key given: it was written
 * with another key. Opening the store stops there rather than hand out garbage.
 */
export class SecretsKeyMismatchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SecretsKeyMismatchError";
  }
}

/**
 * A box over a 32-byte key. The key is copied into a KeyObject: nothing enumerable holds it, so
 * logging the box shows no key material.
 */
export function createSecretBox(key: Uint8Array): SecretBox {
  if (key.byteLength !== SECRET_KEY_BYTES) {
    throw new RangeError(`a secret box needs a ${SECRET_KEY_BYTES}-byte key`);
  }
  const secretKey = createSecretKey(Buffer.from(key));
  // Keyed by place and sealed value: a value opens only where it was sealed, and an altered value
  // is another key of the map, so it is decrypted (and refused) like any other.
  const opened = new Map<string, string>();
  const check = createHmac("sha256", secretKey).update(KEY_CHECK_INPUT).digest("hex");
  return {
    checkValue: () => check,
    seal(plaintext, context) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv(ALGORITHM, secretKey, iv, { authTagLength: TAG_BYTES });
      cipher.setAAD(Buffer.from(context, "utf8"));
      const body = cipher.update(plaintext, "utf8");
      const last = cipher.final();
      return `${SEALED_PREFIX}${Buffer.concat([iv, body, last, cipher.getAuthTag()]).toString("base64url")}`;
    },
    open(sealed, context) {
      const cacheKey = `${context}\n${sealed}`;
      const known = opened.get(cacheKey);
      if (known !== undefined) return known;
      const plaintext = decrypt(secretKey, sealed, context);
      if (opened.size >= OPENED_CACHE_SIZE) opened.delete(opened.keys().next().value ?? "");
      opened.set(cacheKey, plaintext);
      return plaintext;
    },
  };
}

function decrypt(secretKey: KeyObject, sealed: string, context: string): string {
  const bytes = isSealed(sealed)
    ? Buffer.from(sealed.slice(SEALED_PREFIX.length), "base64url")
    : Buffer.alloc(0);
  if (bytes.length < IV_BYTES + TAG_BYTES) {
    throw new SecretUnreadableError(`the secret at ${context} is not a sealed value`);
  }
  const decipher = createDecipheriv(ALGORITHM, secretKey, bytes.subarray(0, IV_BYTES), {
    authTagLength: TAG_BYTES,
  });
  decipher.setAAD(Buffer.from(context, "utf8"));
  decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
  try {
    const body = decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES));
    return Buffer.concat([body, decipher.final()]).toString("utf8");
  } catch (cause) {
    throw new SecretUnreadableError(
      `the secret at ${context} does not decrypt with this key (another key, or altered)`,
      { cause },
    );
  }
}

import { createHmac, randomBytes } from "node:crypto";

/** Standard Webhooks' secret prefix: `whsec_` + base64 of the HMAC key. */
export const SECRET_PREFIX = "whsec_";

/** A new secret: `whsec_` + standard base64 of 32 random bytes. */
export function generateSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString("base64")}`;
}

/**
 * The HMAC key of a stored secret: the base64-decoded part after `whsec_`. A secret stored before
 * the Standard Webhooks format without the prefix signs with its UTF-8 bytes (a receiver verifies
 * it with `new Webhook(secret, { format: "raw" })`).
 */
export function signingKey(secret: string): Buffer {
  return secret.startsWith(SECRET_PREFIX)
    ? Buffer.from(secret.slice(SECRET_PREFIX.length), "base64")
    : Buffer.from(secret, "utf8");
}

/**
 * The `webhook-signature` header (Standard Webhooks): `v1,` + base64 HMAC-SHA256 of
 * `<id>.<timestamp>.<body>` under the secret's key.
 */
export function signDelivery(secret: string, id: string, timestamp: string, body: string): string {
  const mac = createHmac("sha256", signingKey(secret)).update(`${id}.${timestamp}.${body}`);
  return `v1,${mac.digest("base64")}`;
}

import { randomBytes } from "node:crypto";

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** `prefix_` + 22 random base62 characters (~131 bits). */
export function newId(prefix: string): string {
  const bytes = randomBytes(22);
  let out = "";
  for (const byte of bytes) out += ALPHABET[byte % 62];
  return `${prefix}_${out}`;
}

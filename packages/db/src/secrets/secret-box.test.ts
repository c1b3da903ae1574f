import { randomBytes } from "node:crypto";
import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import { createSecretBox, isSealed, SEALED_PREFIX, SecretUnreadableError } from "./secret-box";

const key = randomBytes(32);
const box = createSecretBox(key);
const place = "sandboxes.session_api_key:sb_1";

/** The bytes behind a sealed value: iv (12) | ciphertext | tag (16). */
function bytesOf(sealed: string): Buffer {
  return Buffer.from(sealed.slice(SEALED_PREFIX.length), "base64url");
}

function withBytes(sealed: string, change: (bytes: Buffer) => void): string {
  const bytes = bytesOf(sealed);
  change(bytes);
  return `${SEALED_PREFIX}${bytes.toString("base64url")}`;
}

describe("SecretBox", () => {
  it("seals to a self-describing text value and opens it again", () => {
    for (const plaintext of ["whsec_abc", "", "ключ ✓ 🔑", "x".repeat(4096)]) {
      const sealed = box.seal(plaintext, place);
      expect(sealed.startsWith("enc:v1:")).toBe(true);
      expect(isSealed(sealed)).toBe(true);
      expect(sealed).toMatch(/^enc:v1:[A-Za-z0-9_-]+$/);
      expect(bytesOf(sealed)).toHaveLength(12 + Buffer.byteLength(plaintext) + 16);
      if (plaintext) expect(sealed).not.toContain(plaintext);
      expect(box.open(sealed, place)).toBe(plaintext);
    }
    expect(isSealed("whsec_plain")).toBe(false);
  });

  it("uses a fresh random IV for every value", () => {
    const sealed = Array.from({ length: 1000 }, () => box.seal("same secret", place));
    expect(new Set(sealed).size).toBe(1000);
    const ivs = sealed.map((value) => bytesOf(value).subarray(0, 12).toString("hex"));
    expect(new Set(ivs).size).toBe(1000);
    for (const value of sealed.slice(0, 10)) expect(box.open(value, place)).toBe("same secret");
  });

  it("refuses a value altered anywhere: IV, ciphertext or tag", () => {
    const sealed = box.seal("session-key-123", place);
    // Control: the unaltered value opens, so the refusals below are about the alteration.
    expect(createSecretBox(key).open(sealed, place)).toBe("session-key-123");
    const length = bytesOf(sealed).length;
    for (const at of [0, 11, 12, length - 17, length - 16, length - 1]) {
      const altered = withBytes(sealed, (bytes) => {
        bytes[at] = (bytes[at] ?? 0) ^ 0x01;
      });
      expect(() => box.open(altered, place), `byte ${at}`).toThrow(SecretUnreadableError);
    }
    const truncated = withBytes(sealed, () => undefined).slice(0, -4);
    expect(() => box.open(truncated, place)).toThrow(SecretUnreadableError);
    expect(() => box.open("enc:v1:", place)).toThrow(SecretUnreadableError);
    expect(() => box.open("session-key-123", place)).toThrow(SecretUnreadableError);
  });

  it("refuses another key, and a value moved to another place", () => {
    const sealed = box.seal("session-key-123", place);
    expect(box.open(sealed, place)).toBe("session-key-123");
    expect(() => createSecretBox(randomBytes(32)).open(sealed, place)).toThrow(
      /does not decrypt with this key/,
    );
    expect(() => box.open(sealed, "sandboxes.session_api_key:sb_2")).toThrow(SecretUnreadableError);
    expect(() => box.open(sealed, "webhooks.secret:sb_1")).toThrow(SecretUnreadableError);
  });

  it("names the place but never the value or the key in its errors", () => {
    const sealed = box.seal("session-key-123", place);
    try {
      createSecretBox(randomBytes(32)).open(sealed, place);
      expect.unreachable();
    } catch (error) {
      const text = `${String(error)} ${inspect(error)}`;
      expect(text).toContain(place);
      expect(text).not.toContain("session-key-123");
      expect(text).not.toContain(sealed);
    }
  });

  it("takes exactly 32 bytes of key and shows none of it", () => {
    expect(() => createSecretBox(randomBytes(31))).toThrow(RangeError);
    expect(() => createSecretBox(randomBytes(33))).toThrow(RangeError);
    const shown = `${inspect(box, { depth: 10, showHidden: true })} ${JSON.stringify(box)}`;
    for (const encoding of ["hex", "base64", "base64url"] as const) {
      expect(shown).not.toContain(key.toString(encoding).slice(0, 16));
    }
  });

  it("is not changed by the caller changing its key buffer afterwards", () => {
    const own = randomBytes(32);
    const ownBox = createSecretBox(own);
    const sealed = ownBox.seal("v", place);
    own.fill(0);
    expect(ownBox.open(sealed, place)).toBe("v");
    expect(ownBox.open(ownBox.seal("w", place), place)).toBe("w");
  });
});

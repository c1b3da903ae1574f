import { randomBytes } from "node:crypto";
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ConfigError } from "./config-error";
import { loadEnv } from "./env";
import { parseSecretsKey, resolveSecretsKey, SECRETS_KEY_FILE } from "./secrets-key";

const key = randomBytes(32);

describe("SECRETS_KEY", () => {
  it("takes 32 bytes as 64 hex characters or as base64", () => {
    for (const text of [
      key.toString("hex"),
      key.toString("hex").toUpperCase(),
      key.toString("base64"),
      key.toString("base64").replace(/=$/, ""),
      key.toString("base64url"),
      ` ${key.toString("hex")}\n`,
    ]) {
      expect(parseSecretsKey(text)?.equals(key), text).toBe(true);
    }
  });

  it("refuses anything else", () => {
    for (const text of [
      "",
      "secret",
      key.toString("hex").slice(1),
      `${key.toString("hex")}00`,
      randomBytes(31).toString("base64"),
      randomBytes(33).toString("base64"),
      `${key.toString("base64").slice(0, 42)}!=`,
      key.toString("utf8").slice(0, 32),
    ]) {
      expect(parseSecretsKey(text), JSON.stringify(text)).toBeNull();
    }
  });

  it("is read by env.ts as a key, and a bad one is a one-line error that does not show it", () => {
    expect(loadEnv({ SECRETS_KEY: key.toString("base64") }).SECRETS_KEY?.equals(key)).toBe(true);
    expect(loadEnv({}).SECRETS_KEY).toBeUndefined();
    const bad = "not-a-key-but-maybe-a-password";
    try {
      loadEnv({ SECRETS_KEY: bad });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      const message = (error as Error).message;
      expect(message).toMatch(/SECRETS_KEY must be 32 bytes as 64 hex characters or base64/);
      expect(message).not.toContain(bad);
      expect(message).not.toContain("\n");
    }
  });
});

describe("the key file in DATA_DIR", () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), "secrets-key-"));
    file = path.join(dir, SECRETS_KEY_FILE);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("is created on the first start with mode 0600, and read on the next", () => {
    const first = resolveSecretsKey(undefined, dir);
    expect(first).toMatchObject({ file, created: true });
    expect(first.key).toHaveLength(32);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, "utf8")).toBe(`${first.key.toString("hex")}\n`);
    expect(readdirSync(dir)).toEqual([SECRETS_KEY_FILE]);

    const second = resolveSecretsKey(undefined, dir);
    expect(second).toMatchObject({ file, created: false });
    expect(second.key.equals(first.key)).toBe(true);
  });

  it("is neither read nor created when SECRETS_KEY is given", () => {
    const fromEnv = resolveSecretsKey(key, dir);
    expect(fromEnv).toMatchObject({ file: null, created: false });
    expect(fromEnv.key.equals(key)).toBe(true);
    expect(readdirSync(dir)).toEqual([]);
  });

  it("stops the start when other users can read it", () => {
    resolveSecretsKey(undefined, dir);
    // Control: as created (0600) it is accepted.
    expect(() => resolveSecretsKey(undefined, dir)).not.toThrow();
    for (const mode of [0o640, 0o604, 0o644]) {
      chmodSync(file, mode);
      const error = catchError(() => resolveSecretsKey(undefined, dir));
      expect(error).toBeInstanceOf(ConfigError);
      expect(error.message).toContain(`can be read by other users (mode 0${mode.toString(8)})`);
      expect(error.message).toContain(`chmod 600 ${file}`);
    }
  });

  it("stops the start when it does not hold a 32-byte key, without showing what it holds", () => {
    for (const content of [
      "",
      "abc\n",
      `${key.toString("hex")}ff\n`,
      randomBytes(32).toString("latin1"),
    ]) {
      writeFileSync(file, content, { mode: 0o600 });
      const error = catchError(() => resolveSecretsKey(undefined, dir));
      expect(error).toBeInstanceOf(ConfigError);
      expect(error.message).toMatch(/does not hold a 32-byte key \(64 hex characters\)/);
      expect(error.message).not.toContain("\n");
      if (content.length > 4) expect(error.message).not.toContain(content.trim());
    }
  });

  it("stops the start when the path is not a file", () => {
    mkdirSync(file);
    expect(() => resolveSecretsKey(undefined, dir)).toThrow(ConfigError);
    expect(() => resolveSecretsKey(undefined, dir)).toThrow(/is not a file/);
  });
});

function catchError(run: () => unknown): Error {
  try {
    run();
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected an error");
}

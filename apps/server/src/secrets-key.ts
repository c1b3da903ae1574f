import { randomBytes } from "node:crypto";
import {
  closeSync,
  fsyncSync,
  linkSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  writeSync,
} from "node:fs";
import path from "node:path";
import { SECRET_KEY_BYTES } from "@sandbox-server/db";
import { ConfigError } from "./config-error";

/** Where the generated key lives when SECRETS_KEY is not set. */
export const SECRETS_KEY_FILE = "secrets-key";

const HEX_KEY = /^[0-9a-fA-F]{64}$/;
const BASE64_KEY = /^[A-Za-z0-9+/]{43}=?$|^[A-Za-z0-9_-]{43}=?$/;

/** 32 bytes written as 64 hex characters or as base64 (either alphabet, padding optional). */
export function parseSecretsKey(text: string): Buffer | null {
  const trimmed = text.trim();
  if (HEX_KEY.test(trimmed)) return Buffer.from(trimmed, "hex");
  if (!BASE64_KEY.test(trimmed)) return null;
  const key = Buffer.from(trimmed, "base64url");
  return key.length === SECRET_KEY_BYTES ? key : null;
}

export interface SecretsKey {
  key: Buffer;
  /** The key file, or null when the key came from SECRETS_KEY. */
  file: string | null;
  /** The key file was created on this start. */
  created: boolean;
}

/**
 * The key that encrypts secrets at rest: SECRETS_KEY when given (the key file is then neither read
 * nor created), else `DATA_DIR/secrets-key`, generated with mode 0600 on the first start. A key
 * file other users can read, or one that holds no 32-byte key, stops the start.
 */
export function resolveSecretsKey(fromEnv: Uint8Array | undefined, dataDir: string): SecretsKey {
  if (fromEnv) return { key: Buffer.from(fromEnv), file: null, created: false };
  const file = path.join(dataDir, SECRETS_KEY_FILE);
  if (statSync(file, { throwIfNoEntry: false }))
    return { key: readKeyFile(file), file, created: false };
  const created = createKeyFile(file);
  return { key: created ?? readKeyFile(file), file, created: created !== null };
}

function readKeyFile(file: string): Buffer {
  let text: string;
  try {
    const stat = statSync(file);
    if (!stat.isFile())
      throw new ConfigError(`${file} is not a file; it must hold the secrets key`);
    if ((stat.mode & 0o077) !== 0) {
      const mode = (stat.mode & 0o777).toString(8).padStart(4, "0");
      throw new ConfigError(
        `${file} can be read by other users (mode ${mode}); run chmod 600 ${file} (it holds the key to every stored secret)`,
      );
    }
    text = readFileSync(file, "utf8");
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    const code = (error as NodeJS.ErrnoException).code ?? "error";
    throw new ConfigError(`cannot read the secrets key file ${file} (${code})`);
  }
  const key = parseSecretsKey(text);
  if (!key) {
    throw new ConfigError(
      `${file} does not hold a 32-byte key (64 hex characters); it holds ${Buffer.byteLength(text)} bytes — restore the key file this data directory was written with`,
    );
  }
  return key;
}

/**
 * Writes a new key to a temporary file (0600, synced) and links it into place, so the key file is
 * never seen half-written and two starts never both win. Null when another start created it first.
 */
function createKeyFile(file: string): Buffer | null {
  const key = randomBytes(SECRET_KEY_BYTES);
  const temp = `${file}.${randomBytes(6).toString("hex")}.tmp`;
  try {
    const fd = openSync(temp, "wx", 0o600);
    try {
      writeSync(fd, `${key.toString("hex")}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    try {
      linkSync(temp, file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "EEXIST") return null;
      throw error;
    }
    return key;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "error";
    throw new ConfigError(`cannot create the secrets key file ${file} (${code})`);
  } finally {
    rmSync(temp, { force: true });
  }
}

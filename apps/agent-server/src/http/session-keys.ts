import type { IncomingMessage, ServerResponse } from "node:http";
import path from "node:path";
import { AppError } from "../errors";
import type { KeyChecker } from "./auth";
import { readJsonBody } from "./json-body";
import { sendJson } from "./respond";

/** Where a rotated key is kept, so that a restart of this server accepts it (not the start key). */
const KEY_FILE = "session-api-key";
const KEY_PATTERN = /^[\x21-\x7e]{16,512}$/;

/**
 * The key a rotation left in `dataDir`, if any: it wins over SESSION_API_KEY, which still holds
 * the key the sandbox was started with (a warm-pool sandbox is started with a pool key and handed
 * to its owner under a new one).
 */
export function readRotatedKey(dataDir: string): string | undefined {
  const fs = process.getBuiltinModule("node:fs");
  try {
    const key = fs.readFileSync(path.join(dataDir, KEY_FILE), "utf8").trim();
    return KEY_PATTERN.test(key) ? key : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `POST /api/session-keys` `{"session_api_key": "<new key>"}`, authenticated with a key accepted
 * now: the new key replaces every accepted key (409 on a server started without keys). It is in
 * `dataDir` before the answer, and the old keys stop working with the answer.
 */
export async function rotateSessionKey(
  req: IncomingMessage,
  res: ServerResponse,
  keys: KeyChecker,
  dataDir: string,
): Promise<void> {
  if (!keys.required) {
    throw new AppError("CONFLICT", "This agent server runs without session keys: none to rotate");
  }
  const body = await readJsonBody(req, 4096);
  const key =
    body !== null && typeof body === "object" && "session_api_key" in body
      ? body.session_api_key
      : undefined;
  if (typeof key !== "string" || !KEY_PATTERN.test(key)) {
    throw new AppError("VALIDATION_FAILED", [
      {
        type: "string_pattern_mismatch",
        loc: ["body", "session_api_key"],
        msg: "session_api_key must be 16 to 512 printable ASCII characters without spaces",
      },
    ]);
  }
  writeKeyFile(dataDir, key);
  keys.replace([key]);
  sendJson(res, { success: true });
}

/**
 * Written to a temporary file and renamed into place: never half-written, and it survives a
 * killed process. Not flushed to the disk (an fsync costs several milliseconds on the claim
 * path): like the control plane's own commits (SQLite `synchronous=NORMAL`), a power cut may
 * lose it.
 */
function writeKeyFile(dataDir: string, key: string): void {
  const fs = process.getBuiltinModule("node:fs");
  fs.mkdirSync(dataDir, { recursive: true });
  const target = path.join(dataDir, KEY_FILE);
  const temporary = `${target}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, `${key}\n`, { mode: 0o600 });
  fs.renameSync(temporary, target);
}

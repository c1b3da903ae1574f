import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import type { IdempotencyRecord } from "../../port/rows";
import type { Store } from "../../port/store";
import { createSecretBox } from "../../secrets/secret-box";
import { createSqliteStore } from "../sqlite-store";

let dir: string;
let store: Store;

beforeEach(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "idempotency-test-"));
  store = createSqliteStore(path.join(dir, "store.db"), {
    secretBox: createSecretBox(randomBytes(32)),
  });
  await store.users.insert({ id: "usr_a", name: "a", isAdmin: false, createdAt: 1 });
});

afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const record = (id: string, key: string, createdAt: number): IdempotencyRecord => ({
  id,
  userId: "usr_a",
  key,
  requestHash: "h",
  status: "in_progress",
  responseStatus: null,
  responseBody: null,
  createdAt,
});

/** The database file and its WAL as text. */
function fileBytes(): string {
  return ["store.db", "store.db-wal"]
    .map((name) => {
      try {
        return readFileSync(path.join(dir, name)).toString("latin1");
      } catch {
        return "";
      }
    })
    .join("");
}

it("claims a key once per user and completes it with a response that is sealed at rest", async () => {
  await store.idempotencyKeys.insert(record("idk_1", "k1", 10));
  await expect(store.idempotencyKeys.insert(record("idk_2", "k1", 11))).rejects.toThrow(/UNIQUE/);

  const shownOnce = `sk-${randomBytes(12).toString("hex")}`;
  const body = JSON.stringify({ key: shownOnce });
  expect(await store.idempotencyKeys.complete("idk_1", 201, body)).toBe(true);
  const done = await store.idempotencyKeys.get("usr_a", "k1");
  expect(done).toMatchObject({ status: "completed", responseStatus: 201, responseBody: body });

  // The table holds the record, yet the secret is in neither the file nor its WAL in plain text.
  expect(fileBytes()).toContain("idk_1");
  expect(fileBytes()).not.toContain(shownOnce);
});

it("removes expired records and completes nothing that is gone", async () => {
  await store.idempotencyKeys.insert(record("idk_old", "old", 5));
  await store.idempotencyKeys.insert(record("idk_new", "new", 50));
  expect(await store.idempotencyKeys.removeCreatedBefore(20)).toBe(1);
  expect(await store.idempotencyKeys.get("usr_a", "old")).toBeUndefined();
  expect(await store.idempotencyKeys.get("usr_a", "new")).toBeDefined();
  await store.idempotencyKeys.remove("idk_new");
  expect(await store.idempotencyKeys.get("usr_a", "new")).toBeUndefined();
  expect(await store.idempotencyKeys.complete("idk_new", 201, "{}")).toBe(false);
});

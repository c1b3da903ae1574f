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
  store = createSqliteStore(path.join(dir, "other.db"), {
    secretBox: createSecretBox(randomBytes(32)),
  });
  await store.users.insert({ id: "usr_a", name: "a", isAdmin: false, createdAt: 1 });
  await store.idempotencyKeys.insert(record("idk_old", "old", 5));
  await store.idempotencyKeys.insert(record("idk_new", "new", 50));
  expect(await store.idempotencyKeys.removeCreatedBefore(20)).toBe(1);
  expect(await store.idempotencyKeys.get("usr_a", "old")).toBeUndefined();
  expect(await store.idempotencyKeys.get("usr_a", "new")).toBeDefined();
  await store.idempotencyKeys.remove("idk_new");
  expect(await store.idempotencyKeys.get("usr_a", "new")).toBeUndefined();
  expect(await store.idempotencyKeys.complete("idk_new", 201, "{}")).toBe(false);
});

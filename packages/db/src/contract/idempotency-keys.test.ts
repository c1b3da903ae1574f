import { randomBytes } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type OpenedStore, storeAdapters } from "../../test/stores";
import type { IdempotencyRecord } from "../port/rows";
import type { Store } from "../port/store";

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

/** The same contract for every adapter of the store port. */
describe.each(storeAdapters())("$name store", (adapter) => {
  let opened: OpenedStore;
  let store: Store;

  beforeEach(async () => {
    opened = await adapter.open();
    store = opened.store;
    await store.users.insert({ id: "usr_a", name: "a", isAdmin: false, createdAt: 1 });
  });
  afterEach(() => adapter.cleanup());

  it("claims a key once per user and completes it with a response that is sealed at rest", async () => {
    await store.idempotencyKeys.insert(record("idk_1", "k1", 10));
    // A taken (user, key) pair is refused (SQLite: UNIQUE constraint; PostgreSQL: 23505).
    await expect(store.idempotencyKeys.insert(record("idk_2", "k1", 11))).rejects.toThrow();

    const shownOnce = `sk-${randomBytes(12).toString("hex")}`;
    const body = JSON.stringify({ key: shownOnce });
    expect(await store.idempotencyKeys.complete("idk_1", 201, body)).toBe(true);
    const done = await store.idempotencyKeys.get("usr_a", "k1");
    expect(done).toMatchObject({ status: "completed", responseStatus: 201, responseBody: body });

    // The table holds the record, sealed: the secret is not stored in plain text.
    const [stored] = await opened.raw(
      "SELECT id, response_body FROM idempotency_keys WHERE id = ?",
      ["idk_1"],
    );
    expect(stored?.id).toBe("idk_1");
    expect(String(stored?.response_body)).toMatch(/^enc:v1:/);
    expect(String(stored?.response_body)).not.toContain(shownOnce);
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
});

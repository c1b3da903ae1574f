import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectAppError, expectValidationError } from "../../test/expect-error";
import { ADMIN_KEY, createTestCore, type TestCore, type TestUser } from "../../test/harness";
import { waitForStatus } from "../../test/wait";
import { hashApiKey } from "../auth/api-keys";
import { bootstrapAdmin } from "./bootstrap-admin";
import { MAX_LIVE_KEYS } from "./procedures/create-api-key";

// One real sandbox (alice's): disabling a user pauses it, deleting the user removes it.
let t: TestCore;
let alice: TestUser;
let bob: TestUser;

beforeAll(async () => {
  t = await createTestCore();
  alice = await t.createUser("alice");
  bob = await t.createUser("bob");
});

afterAll(async () => {
  await t?.close();
});

/** Every byte SQLite wrote: the database file and its write-ahead log. */
async function databaseBytes(): Promise<string> {
  const file = path.join(t.dataDir, "sandbox-server.db");
  const parts = await Promise.all(
    [file, `${file}-wal`].map((f) => readFile(f).catch(() => Buffer.alloc(0))),
  );
  return Buffer.concat(parts).toString("latin1");
}

describe("users.me", () => {
  it("answers the user behind the key", async () => {
    expect(await t.admin.users.me({})).toMatchObject({
      id: "usr_admin",
      is_admin: true,
      disabled: false,
    });
    expect(await alice.caller.users.me({})).toMatchObject({
      id: alice.id,
      name: "alice",
      is_admin: false,
      disabled: false,
      created_at: expect.any(String),
    });
  });

  it("refuses a missing, unknown or oversized key", async () => {
    await expectAppError((await t.callerFor(null)).users.me({}), "UNAUTHORIZED");
    await expectAppError((await t.callerFor("ssk_unknown")).users.me({}), "UNAUTHORIZED");
    await expectAppError((await t.callerFor("x".repeat(10_000))).users.me({}), "UNAUTHORIZED");
  });
});

describe("users.create", () => {
  it("creates a user with a working key that is stored only as its hash", async () => {
    const created = await t.admin.users.create({ name: "  carol  " });
    expect(created).toMatchObject({ name: "carol", is_admin: false, disabled: false });
    expect(created.api_key).toMatch(/^ssk_[A-Za-z0-9_-]{32}$/);
    const carol = await t.callerFor(created.api_key);
    expect((await carol.users.me({})).id).toBe(created.id);
    const stored = await databaseBytes();
    expect(stored).toContain(hashApiKey(created.api_key));
    expect(stored).not.toContain(created.api_key);
  });

  it("creates admins when asked", async () => {
    const created = await t.admin.users.create({ name: "second admin", is_admin: true });
    expect(created.is_admin).toBe(true);
    const other = await t.callerFor(created.api_key);
    expect((await other.users.list({})).items.length).toBeGreaterThan(1);
  });

  it("validates the name and the admin flag", async () => {
    await expectValidationError(t.admin.users.create({ name: "" }), ["name"]);
    await expectValidationError(t.admin.users.create({ name: "   " }), ["name"]);
    await expectValidationError(t.admin.users.create({ name: "x".repeat(201) }), ["name"]);
    await expectValidationError(
      // @ts-expect-error: not a boolean
      t.admin.users.create({ name: "dave", is_admin: "yes" }),
      ["is_admin"],
    );
  });

  it("is refused for a second user while sandboxes are not isolated, unless allowed", async () => {
    const unisolated = await createTestCore({
      sandboxing: "none",
      database: ":memory:",
      config: { allowUnisolatedMultiUser: false },
    });
    try {
      expect(unisolated.runtime.isolation).toBe("none");
      await expectAppError(
        unisolated.admin.users.create({ name: "second" }),
        "UNISOLATED_MULTI_USER",
      );
      expect((await unisolated.admin.users.list({})).items.map((u) => u.id)).toEqual(["usr_admin"]);
      unisolated.deps.config.allowUnisolatedMultiUser = true;
      expect((await unisolated.admin.users.create({ name: "second" })).name).toBe("second");
    } finally {
      await unisolated.close();
    }
  });
});

describe("admin-only procedures", () => {
  it("refuse a user who is not an admin (403) and change nothing", async () => {
    const users = alice.caller.users;
    await expectAppError(users.create({ name: "mallory" }), "FORBIDDEN");
    await expectAppError(users.list({}), "FORBIDDEN");
    await expectAppError(users.get({ id: bob.id }), "FORBIDDEN");
    await expectAppError(users.disable({ id: bob.id }), "FORBIDDEN");
    await expectAppError(users.enable({ id: bob.id }), "FORBIDDEN");
    await expectAppError(users.delete({ id: bob.id }), "FORBIDDEN");
    const names = (await t.admin.users.list({})).items.map((u) => u.name);
    expect(names).not.toContain("mallory");
    expect((await bob.caller.users.me({})).disabled).toBe(false);
  });
});

describe("users.list and users.get", () => {
  it("list every user, oldest first, without keys", async () => {
    const list = await t.admin.users.list({});
    expect(list.items.slice(0, 3).map((u) => u.id)).toEqual(["usr_admin", alice.id, bob.id]);
    expect(JSON.stringify(list)).not.toContain(alice.apiKey);
    expect(JSON.stringify(list)).not.toContain(hashApiKey(alice.apiKey));
  });

  it("get reads one user; an unknown id is 404", async () => {
    expect(await t.admin.users.get({ id: bob.id })).toMatchObject({ id: bob.id, name: "bob" });
    await expectAppError(t.admin.users.get({ id: "usr_nobody" }), "USER_NOT_FOUND");
    await expectValidationError(t.admin.users.get({ id: "" }), ["id"]);
  });
});

describe("users.disable, users.enable and users.delete", () => {
  let sandboxId: string;
  let conversationId: string;

  beforeAll(async () => {
    const started = await alice.caller.sandboxes.start({});
    sandboxId = started.id;
    await waitForStatus(alice.caller, sandboxId, "RUNNING");
    const conversation = await alice.caller.conversations.create({ sandbox_id: sandboxId });
    conversationId = conversation.id;
  });

  it("disable refuses the user's keys at once and pauses their running sandboxes", async () => {
    // The key is in the verified-key cache now; disabling must drop it from there too.
    expect((await (await t.callerFor(alice.apiKey)).users.me({})).id).toBe(alice.id);
    const disabled = await t.admin.users.disable({ id: alice.id });
    expect(disabled).toMatchObject({ id: alice.id, disabled: true });
    await expectAppError((await t.callerFor(alice.apiKey)).users.me({}), "UNAUTHORIZED");
    expect((await t.store.sandboxes.get(sandboxId))?.status).toBe("PAUSED");
    expect((await t.runtime.inspect(sandboxId)).state).toBe("paused");
    // Idempotent.
    expect((await t.admin.users.disable({ id: alice.id })).disabled).toBe(true);
    expect((await t.admin.users.get({ id: alice.id })).disabled).toBe(true);
  });

  it("enable lets the keys in again; paused sandboxes stay paused", async () => {
    const enabled = await t.admin.users.enable({ id: alice.id });
    expect(enabled).toMatchObject({ id: alice.id, disabled: false });
    const again = await t.callerFor(alice.apiKey);
    expect((await again.users.me({})).disabled).toBe(false);
    expect((await again.sandboxes.get({ id: sandboxId })).status).toBe("PAUSED");
    expect((await t.admin.users.enable({ id: alice.id })).disabled).toBe(false);
  });

  it("admins cannot disable, enable or delete themselves (409)", async () => {
    await expectAppError(t.admin.users.disable({ id: "usr_admin" }), "CANNOT_MODIFY_SELF");
    await expectAppError(t.admin.users.enable({ id: "usr_admin" }), "CANNOT_MODIFY_SELF");
    await expectAppError(t.admin.users.delete({ id: "usr_admin" }), "CANNOT_MODIFY_SELF");
    expect((await t.admin.users.me({})).disabled).toBe(false);
  });

  it("unknown users are 404, bad ids 422", async () => {
    await expectAppError(t.admin.users.disable({ id: "usr_nobody" }), "USER_NOT_FOUND");
    await expectAppError(t.admin.users.enable({ id: "usr_nobody" }), "USER_NOT_FOUND");
    await expectAppError(t.admin.users.delete({ id: "usr_nobody" }), "USER_NOT_FOUND");
    await expectValidationError(t.admin.users.disable({ id: "" }), ["id"]);
    await expectValidationError(t.admin.users.enable({ id: "" }), ["id"]);
    await expectValidationError(t.admin.users.delete({ id: "x".repeat(65) }), ["id"]);
  });

  it("delete removes the user's sandboxes, archives their conversations and hides the user", async () => {
    expect(await t.admin.users.delete({ id: alice.id })).toEqual({ success: true, id: alice.id });
    expect((await t.runtime.inspect(sandboxId)).state).toBe("missing");
    expect(await t.store.sandboxes.get(sandboxId)).toBeUndefined();
    expect((await t.store.conversations.get(conversationId))?.archived).toBe(true);
    await expectAppError(t.admin.users.get({ id: alice.id }), "USER_NOT_FOUND");
    expect((await t.admin.users.list({})).items.map((u) => u.id)).not.toContain(alice.id);
    await expectAppError((await t.callerFor(alice.apiKey)).users.me({}), "UNAUTHORIZED");
    await expectAppError(t.admin.users.delete({ id: alice.id }), "USER_NOT_FOUND");
  });
});

describe("API keys", () => {
  it("listApiKeys shows the caller's keys without the key or its hash", async () => {
    const list = await bob.caller.users.listApiKeys({});
    expect(list.items).toEqual([
      {
        id: expect.stringMatching(/^key_/),
        name: "default",
        prefix: bob.apiKey.slice(0, 8),
        created_at: expect.any(String),
        current: true,
      },
    ]);
    expect(JSON.stringify(list)).not.toContain(bob.apiKey);
    expect(JSON.stringify(list)).not.toContain(hashApiKey(bob.apiKey));
    // Only one's own keys: the admin's list has none of bob's.
    const adminKeys = await t.admin.users.listApiKeys({});
    expect(adminKeys.items.map((k) => k.id)).not.toContain(list.items[0]?.id);
  });

  it("createApiKey answers a new working key once; current tells which key was used", async () => {
    const created = await bob.caller.users.createApiKey({ name: "laptop" });
    expect(created).toMatchObject({ name: "laptop", current: false });
    expect(created.api_key).not.toBe(bob.apiKey);
    const laptop = await t.callerFor(created.api_key);
    expect((await laptop.users.me({})).id).toBe(bob.id);
    const seenWithLaptop = await laptop.users.listApiKeys({});
    expect(seenWithLaptop.items.map((k) => [k.name, k.current])).toEqual([
      ["default", false],
      ["laptop", true],
    ]);
  });

  it("revokeApiKey refuses the key at once, also one warm in the cache", async () => {
    const created = await bob.caller.users.createApiKey({ name: "to revoke" });
    const warm = await t.callerFor(created.api_key);
    expect((await warm.users.me({})).id).toBe(bob.id);
    expect(await bob.caller.users.revokeApiKey({ id: created.id })).toEqual({
      success: true,
      id: created.id,
    });
    await expectAppError((await t.callerFor(created.api_key)).users.me({}), "UNAUTHORIZED");
    const names = (await bob.caller.users.listApiKeys({})).items.map((k) => k.name);
    expect(names).not.toContain("to revoke");
    // Revoked already: as unknown as any other id.
    await expectAppError(bob.caller.users.revokeApiKey({ id: created.id }), "API_KEY_NOT_FOUND");
  });

  it("a key can revoke itself while another key remains", async () => {
    const created = await bob.caller.users.createApiKey({ name: "self" });
    const self = await t.callerFor(created.api_key);
    expect((await self.users.revokeApiKey({ id: created.id })).success).toBe(true);
    await expectAppError((await t.callerFor(created.api_key)).users.me({}), "UNAUTHORIZED");
  });

  it("another user's key id is 404, also for an admin, and stays live", async () => {
    const bobsKeys = (await bob.caller.users.listApiKeys({})).items;
    const target = bobsKeys[0];
    if (!target) throw new Error("bob has no key");
    const other = await t.createUser("erin");
    await expectAppError(other.caller.users.revokeApiKey({ id: target.id }), "API_KEY_NOT_FOUND");
    await expectAppError(t.admin.users.revokeApiKey({ id: target.id }), "API_KEY_NOT_FOUND");
    await expectAppError(bob.caller.users.revokeApiKey({ id: "key_nothing" }), "API_KEY_NOT_FOUND");
    expect((await bob.caller.users.listApiKeys({})).items).toEqual(bobsKeys);
  });

  it("the last live key cannot be revoked (409) and keeps working", async () => {
    const frank = await t.createUser("frank");
    const [only] = (await frank.caller.users.listApiKeys({})).items;
    if (!only) throw new Error("frank has no key");
    await expectAppError(frank.caller.users.revokeApiKey({ id: only.id }), "LAST_API_KEY");
    expect((await (await t.callerFor(frank.apiKey)).users.me({})).id).toBe(frank.id);
  });

  it(`at most ${MAX_LIVE_KEYS} live keys per user (409); revoking one makes room`, async () => {
    const grace = await t.createUser("grace");
    for (let i = 1; i < MAX_LIVE_KEYS; i++) {
      await grace.caller.users.createApiKey({ name: `key ${i}` });
    }
    expect((await grace.caller.users.listApiKeys({})).items).toHaveLength(MAX_LIVE_KEYS);
    await expectAppError(
      grace.caller.users.createApiKey({ name: "one too many" }),
      "API_KEY_LIMIT_REACHED",
    );
    const spare = (await grace.caller.users.listApiKeys({})).items.find((k) => !k.current);
    if (!spare) throw new Error("no spare key");
    await grace.caller.users.revokeApiKey({ id: spare.id });
    expect((await grace.caller.users.createApiKey({ name: "fits again" })).name).toBe("fits again");
  });

  it("validates names and ids", async () => {
    await expectValidationError(bob.caller.users.createApiKey({ name: "" }), ["name"]);
    await expectValidationError(bob.caller.users.createApiKey({ name: " ".repeat(3) }), ["name"]);
    await expectValidationError(bob.caller.users.revokeApiKey({ id: "" }), ["id"]);
  });

  it("key procedures refuse a caller without a valid key", async () => {
    const anonymous = await t.callerFor(null);
    await expectAppError(anonymous.users.listApiKeys({}), "UNAUTHORIZED");
    await expectAppError(anonymous.users.createApiKey({ name: "x" }), "UNAUTHORIZED");
    await expectAppError(anonymous.users.revokeApiKey({ id: "key_x" }), "UNAUTHORIZED");
    // The admin key is still the admin's.
    expect((await (await t.callerFor(ADMIN_KEY)).users.me({})).id).toBe("usr_admin");
  });
});

describe("the ADMIN_API_KEY at the next start (bootstrapAdmin)", () => {
  it("works again after the admin user behind it was deleted by another admin", async () => {
    const other = await createTestCore({ database: ":memory:" });
    try {
      // While the variable is set, the environment decides (as for a revoked ADMIN_API_KEY).
      const second = await other.createUser("second admin", { isAdmin: true });
      expect(await second.caller.users.delete({ id: "usr_admin" })).toEqual({
        success: true,
        id: "usr_admin",
      });
      await expectAppError((await other.callerFor(ADMIN_KEY)).users.me({}), "UNAUTHORIZED");
      // What the server does at start with ADMIN_API_KEY set.
      await bootstrapAdmin(other.deps, ADMIN_KEY);
      const me = await (await other.callerFor(ADMIN_KEY)).users.me({});
      expect(me).toMatchObject({ is_admin: true, disabled: false });
    } finally {
      await other.close();
    }
  });
});

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_KEY, startTestServer, type TestServer } from "./harness";

describe("admins disable and delete users", () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(async () => {
    await t?.close();
  });

  async function userWithSandbox(name: string) {
    const created = await t.api("POST", "/api/v1/users", { body: { name } });
    expect(created.status).toBe(201);
    expect(created.body.disabled).toBe(false);
    const key = created.body.api_key as string;
    const sandbox = await t.api("POST", "/api/v1/sandboxes", { key, body: {} });
    expect(sandbox.status).toBe(201);
    await t.waitForStatus(sandbox.body.id, "RUNNING", key);
    return { id: created.body.id as string, key, sandboxId: sandbox.body.id as string };
  }

  it("disabled: every key refused at once, running sandboxes paused; enabled: keys work again", async () => {
    const alice = await userWithSandbox("alice");
    const second = await t.api("POST", "/api/v1/users/me/api-keys", {
      key: alice.key,
      body: { name: "second" },
    });
    const secondKey = second.body.api_key as string;
    // Both keys work (and are now in the verified-key cache).
    expect((await t.api("GET", "/api/v1/users/me", { key: alice.key })).status).toBe(200);
    expect((await t.api("GET", "/api/v1/users/me", { key: secondKey })).status).toBe(200);

    const disabled = await t.api("POST", `/api/v1/users/${alice.id}/disable`);
    expect(disabled.status).toBe(200);
    expect(disabled.body).toMatchObject({ id: alice.id, disabled: true });
    expect((await t.api("GET", "/api/v1/users/me", { key: alice.key })).status).toBe(401);
    expect((await t.api("GET", "/api/v1/users/me", { key: secondKey })).status).toBe(401);
    expect((await t.trpc("query", "users.me", {}, alice.key)).body.data.code).toBe("UNAUTHORIZED");
    // The sandbox is paused, as the admin sees it.
    const state = await t.api("GET", `/api/v1/users/${alice.id}`);
    expect(state.body.disabled).toBe(true);
    const runtimeState = await t.runtime.inspect(alice.sandboxId);
    expect(runtimeState.state).toBe("paused");
    // Idempotent.
    expect((await t.api("POST", `/api/v1/users/${alice.id}/disable`)).status).toBe(200);

    const enabled = await t.api("POST", `/api/v1/users/${alice.id}/enable`);
    expect(enabled.body.disabled).toBe(false);
    expect((await t.api("GET", "/api/v1/users/me", { key: alice.key })).status).toBe(200);
    const sandbox = await t.api("GET", `/api/v1/sandboxes/${alice.sandboxId}`, { key: alice.key });
    expect(sandbox.body.status).toBe("PAUSED");
  });

  it("deleted: sandboxes deleted, conversations archived, keys gone, the user 404", async () => {
    const bob = await userWithSandbox("bob");
    const conv = await t.api("POST", "/api/v1/app-conversations", {
      key: bob.key,
      body: { sandbox_id: bob.sandboxId },
    });
    expect(conv.status).toBe(201);

    const deleted = await t.api("DELETE", `/api/v1/users/${bob.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ success: true, id: bob.id });

    expect((await t.api("GET", "/api/v1/users/me", { key: bob.key })).status).toBe(401);
    expect((await t.api("GET", `/api/v1/users/${bob.id}`)).status).toBe(404);
    expect((await t.api("DELETE", `/api/v1/users/${bob.id}`)).status).toBe(404);
    const users = await t.api("GET", "/api/v1/users");
    expect(users.body.items.map((u: { id: string }) => u.id)).not.toContain(bob.id);
    expect((await t.runtime.inspect(bob.sandboxId)).state).toBe("missing");
    const row = await t.server.core.deps.repos.conversations.get(conv.body.id);
    expect(row?.archived).toBe(true);
  });

  it("admins cannot disable or delete themselves; others are refused; unknown users are 404", async () => {
    const me = await t.api("GET", "/api/v1/users/me");
    const self = await t.api("POST", `/api/v1/users/${me.body.id}/disable`);
    expect(self.status).toBe(409);
    expect(self.body.code).toBe("CANNOT_MODIFY_SELF");
    expect((await t.api("DELETE", `/api/v1/users/${me.body.id}`)).body.code).toBe(
      "CANNOT_MODIFY_SELF",
    );
    const carol = await t.createUser("carol");
    expect(
      (await t.api("POST", `/api/v1/users/${me.body.id}/disable`, { key: carol })).status,
    ).toBe(403);
    expect((await t.api("DELETE", "/api/v1/users/usr_nobody")).status).toBe(404);
    expect(
      (await t.trpc("mutation", "users.disable", { id: "usr_nobody" })).body.data,
    ).toMatchObject({ code: "USER_NOT_FOUND", httpStatus: 404 });
    // The admin still works.
    expect((await t.api("GET", "/api/v1/users/me", { key: ADMIN_KEY })).status).toBe(200);
  });
});

describe("a server whose sandboxes are not isolated", () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ runtime: "process", sandboxing: "none" });
  });
  afterAll(async () => {
    await t?.close();
  });

  it("says so on /health and refuses a second user, naming the override", async () => {
    expect(t.runtime.isolation).toBe("none");
    const refused = await t.api("POST", "/api/v1/users", { body: { name: "second" } });
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe("UNISOLATED_MULTI_USER");
    expect(refused.body.message).toContain("ALLOW_UNISOLATED_MULTI_USER=true");
    // The one user keeps full use of it.
    const own = await t.api("POST", "/api/v1/users/me/api-keys", { body: { name: "laptop" } });
    expect(own.status).toBe(201);
  });
});

describe("a server whose sandboxes are not isolated, with the override", () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({
      runtime: "process",
      sandboxing: "none",
      config: { allowUnisolatedMultiUser: true },
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  it("creates a second user", async () => {
    expect((await t.api("POST", "/api/v1/users", { body: { name: "second" } })).status).toBe(201);
  });
});

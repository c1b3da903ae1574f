import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { command, waitForReply } from "../../test/conversation";
import { expectAppError, expectValidationError } from "../../test/expect-error";
import { createTestCore, type TestCore, type TestUser } from "../../test/harness";
import { type Receiver, startReceiver } from "../../test/receiver";
import { pollUntil, waitForStatus } from "../../test/wait";
import type { WebhookDelivery } from "./contracts";

/** whsec_ + standard base64 of 24 bytes. */
const OWN_SECRET = `whsec_${Buffer.alloc(24, 7).toString("base64")}`;

// A real receiver on 127.0.0.1 (so private networks are allowed for this core), one real agent
// server (alice's two conversations, for conversation events and scoping), and sandboxes whose
// command exits at once (cheap lifecycle events).
let t: TestCore;
let alice: TestUser;
let bob: TestUser;
let receiver: Receiver;
const MISSING_ID = "00000000-0000-4000-8000-000000000000";
const MAX_ATTEMPTS = 3;

beforeAll(async () => {
  receiver = await startReceiver();
  t = await createTestCore({
    config: {
      webhookAllowPrivateNetworks: true,
      webhookMaxAttempts: MAX_ATTEMPTS,
      webhookBackoffBaseMs: 50,
      webhookBackoffMaxMs: 200,
    },
  });
  alice = await t.createUser("alice");
  bob = await t.createUser("bob");
  await t.addSpec({ id: "exits", command: ["/bin/sh", "-c", "exit 3"] });
});

afterAll(async () => {
  await t?.close();
  await receiver?.close();
});

async function withPrivateNetworks<T>(allowed: boolean, work: () => Promise<T>): Promise<T> {
  const before = t.deps.config.webhookAllowPrivateNetworks;
  t.deps.config.webhookAllowPrivateNetworks = allowed;
  try {
    return await work();
  } finally {
    t.deps.config.webhookAllowPrivateNetworks = before;
  }
}

/** Polls a webhook's deliveries (bounded) until `done` holds for them. */
function deliveriesUntil(
  owner: TestUser,
  id: string,
  done: (items: WebhookDelivery[]) => boolean,
  what: string,
): Promise<WebhookDelivery[]> {
  return pollUntil(async () => (await owner.caller.webhooks.deliveries({ id })).items, done, what);
}

/** A sandbox of `owner` that fails to start and is deleted: three lifecycle moves, no agent. */
async function failedSandboxLifecycle(owner: TestUser): Promise<string> {
  const started = await owner.caller.sandboxes.start({ sandbox_spec_id: "exits" });
  await waitForStatus(owner.caller, started.id, "ERROR");
  await owner.caller.sandboxes.delete({ id: started.id });
  return started.id;
}

describe("webhooks.create", () => {
  it("registers a webhook and shows its generated secret once", async () => {
    const created = await alice.caller.webhooks.create({ url: `${receiver.url}/created` });
    expect(created).toEqual({
      id: expect.stringMatching(/^wh_/),
      url: `${receiver.url}/created`,
      events: null,
      conversation_id: null,
      created_at: expect.any(String),
      secret: expect.stringMatching(/^whsec_/),
    });
    const read = await alice.caller.webhooks.get({ id: created.id });
    expect(read).not.toHaveProperty("secret");
    expect(JSON.stringify(await alice.caller.webhooks.list({}))).not.toContain(created.secret);
    await alice.caller.webhooks.delete({ id: created.id });
  });

  it("keeps a given secret and event filter, and hides a password in the url", async () => {
    const created = await alice.caller.webhooks.create({
      url: `http://user:hunter2-password@127.0.0.1:${new URL(receiver.url).port}/basic`,
      events: ["sandbox.deleted", "sandbox.deleted"],
      secret: OWN_SECRET,
    });
    expect(created.secret).toBe(OWN_SECRET);
    expect(created.events).toEqual(["sandbox.deleted"]);
    expect(created.url).not.toContain("hunter2-password");
    expect((await alice.caller.webhooks.get({ id: created.id })).url).toBe(created.url);
    await alice.caller.webhooks.delete({ id: created.id });
  });

  it("refuses a user's webhook past the per-user limit with 409; another user is not limited", async () => {
    const before = t.deps.config.maxWebhooksPerUser;
    t.deps.config.maxWebhooksPerUser = 2;
    const made: string[] = [];
    try {
      for (const n of [1, 2]) {
        made.push((await alice.caller.webhooks.create({ url: `${receiver.url}/limit-${n}` })).id);
      }
      await expectAppError(
        alice.caller.webhooks.create({ url: `${receiver.url}/limit-3` }),
        "WEBHOOK_LIMIT_REACHED",
      );
      const bobs = await bob.caller.webhooks.create({ url: `${receiver.url}/bob` });
      await bob.caller.webhooks.delete({ id: bobs.id });
      // Deleting one makes room again.
      await alice.caller.webhooks.delete({ id: made.pop() ?? "" });
      made.push((await alice.caller.webhooks.create({ url: `${receiver.url}/limit-3` })).id);
    } finally {
      t.deps.config.maxWebhooksPerUser = before;
      for (const id of made) await alice.caller.webhooks.delete({ id });
    }
  });

  it("validates its input", async () => {
    const create = alice.caller.webhooks.create;
    await expectValidationError(create({ url: "ftp://127.0.0.1/x" }), ["url"]);
    await expectValidationError(create({ url: "not a url" }), ["url"]);
    await expectValidationError(create({ url: receiver.url, events: [] }), ["events"]);
    // @ts-expect-error: not an event kind
    await expectValidationError(create({ url: receiver.url, events: ["Bogus"] }), ["events", 0]);
    await expectValidationError(create({ url: receiver.url, secret: "short" }), ["secret"]);
    // Standard Webhooks secrets only: a plain string is refused, not used as key bytes.
    const plain = create({ url: receiver.url, secret: "a-secret-of-sixteen-or-more" });
    await expectValidationError(plain, ["secret"]);
    await expectValidationError(create({ url: receiver.url, conversation_id: "nope" }), [
      "conversation_id",
    ]);
    expect((await alice.caller.webhooks.list({})).items).toEqual([]);
  });

  it("refuses destinations webhooks may not reach (422 on url), registering nothing", async () => {
    const refused = await withPrivateNetworks(false, () =>
      expectValidationError(alice.caller.webhooks.create({ url: `${receiver.url}/x` }), ["url"]),
    );
    expect(refused.issues?.[0]?.code).toBe("destination_refused");
    // Never, whatever is allowed: link-local / cloud metadata and unspecified addresses.
    await expectValidationError(
      alice.caller.webhooks.create({ url: "http://169.254.169.254/latest/meta-data" }),
      ["url"],
    );
    await expectValidationError(alice.caller.webhooks.create({ url: "http://0.0.0.0:9/x" }), [
      "url",
    ]);
    // The control plane itself (where it listens), even on an allowed private network.
    const port = Number(new URL(receiver.url).port);
    t.deps.config.webhookDeniedTargets = [{ host: "127.0.0.1", port }];
    try {
      const own = await expectValidationError(
        alice.caller.webhooks.create({ url: `${receiver.url}/x` }),
        ["url"],
      );
      expect(own.message).toContain("control plane");
    } finally {
      t.deps.config.webhookDeniedTargets = [];
    }
    expect((await alice.caller.webhooks.list({})).items).toEqual([]);
  });

  it("a conversation scope must be one of the caller's conversations (404)", async () => {
    await expectAppError(
      alice.caller.webhooks.create({ url: receiver.url, conversation_id: MISSING_ID }),
      "CONVERSATION_NOT_FOUND",
    );
    await expectAppError(
      (await t.callerFor(null)).webhooks.create({ url: receiver.url }),
      "UNAUTHORIZED",
    );
  });
});

describe("webhooks.list, webhooks.get and webhooks.delete", () => {
  const ids: string[] = [];

  beforeAll(async () => {
    for (const name of ["a", "b", "c"]) {
      ids.push((await bob.caller.webhooks.create({ url: `${receiver.url}/bob-${name}` })).id);
    }
  });

  it("list shows only the caller's webhooks, paged with an opaque cursor", async () => {
    expect((await alice.caller.webhooks.list({})).items).toEqual([]);
    const first = await bob.caller.webhooks.list({ limit: 2 });
    expect(first.items).toHaveLength(2);
    const second = await bob.caller.webhooks.list({
      limit: 2,
      page_id: first.next_page_id ?? undefined,
    });
    expect(second.next_page_id).toBeNull();
    const seen = [...first.items, ...second.items].map((hook) => hook.id);
    expect(seen.sort()).toEqual([...ids].sort());
    await expectValidationError(bob.caller.webhooks.list({ limit: 0 }), ["limit"]);
    await expectValidationError(bob.caller.webhooks.list({ page_id: "garbage" }), ["page_id"]);
  });

  it("get reads one; another user's webhook is 404 exactly like a missing one", async () => {
    const id = ids[0] ?? "";
    expect((await bob.caller.webhooks.get({ id })).url).toBe(`${receiver.url}/bob-a`);
    const foreign = await expectAppError(alice.caller.webhooks.get({ id }), "WEBHOOK_NOT_FOUND");
    const missing = await expectAppError(
      alice.caller.webhooks.get({ id: "wh_missing" }),
      "WEBHOOK_NOT_FOUND",
    );
    expect(foreign.message.replace(id, "<id>")).toBe(missing.message.replace("wh_missing", "<id>"));
    await expectAppError(alice.caller.webhooks.deliveries({ id }), "WEBHOOK_NOT_FOUND");
    await expectValidationError(bob.caller.webhooks.get({ id: "" }), ["id"]);
  });

  it("another user cannot delete it (404); the owner can, once", async () => {
    const id = ids[2] ?? "";
    await expectAppError(alice.caller.webhooks.delete({ id }), "WEBHOOK_NOT_FOUND");
    expect((await bob.caller.webhooks.get({ id })).id).toBe(id);
    expect(await bob.caller.webhooks.delete({ id })).toEqual({ success: true, id });
    await expectAppError(bob.caller.webhooks.get({ id }), "WEBHOOK_NOT_FOUND");
    await expectAppError(bob.caller.webhooks.delete({ id }), "WEBHOOK_NOT_FOUND");
    await expectAppError(bob.caller.webhooks.deliveries({ id }), "WEBHOOK_NOT_FOUND");
    await expectValidationError(bob.caller.webhooks.delete({ id: "" }), ["id"]);
    for (const left of ids.slice(0, 2)) await bob.caller.webhooks.delete({ id: left });
  });
});

describe("webhooks.deliveries", () => {
  it("records each lifecycle event of the owner's sandboxes, delivered to the receiver", async () => {
    const hook = await alice.caller.webhooks.create({ url: `${receiver.url}/lifecycle` });
    const bobsHook = await bob.caller.webhooks.create({ url: `${receiver.url}/bob-lifecycle` });
    const sandboxId = await failedSandboxLifecycle(alice);
    const delivered = await deliveriesUntil(
      alice,
      hook.id,
      (items) =>
        items.some((d) => d.kind === "sandbox.deleted" && d.status === "succeeded") &&
        items.every((d) => d.status === "succeeded"),
      "the lifecycle events were not delivered",
    );
    for (const delivery of delivered) {
      expect(delivery).toMatchObject({
        webhook_id: hook.id,
        status: "succeeded",
        attempts: 1,
        last_status_code: 200,
        last_error: null,
        next_attempt_at: null,
        completed_at: expect.any(String),
      });
    }
    expect(delivered.map((d) => d.kind)).toContain("sandbox.status_changed");
    const bodies = receiver.at("/lifecycle").map((request) => request.payload);
    expect(bodies.map((payload) => payload.event_id).sort()).toEqual(
      delivered.map((d) => d.event_id).sort(),
    );
    expect(bodies.every((payload) => payload.sandbox_id === sandboxId)).toBe(true);
    expect(bodies.find((p) => p.kind === "sandbox.status_changed")?.data).toMatchObject({
      status: "ERROR",
      previous_status: "STARTING",
    });
    // Queued with alice's in the same transaction, had it been queued at all: bob got nothing.
    expect((await bob.caller.webhooks.deliveries({ id: bobsHook.id })).items).toEqual([]);
    expect(receiver.at("/bob-lifecycle")).toEqual([]);
    await alice.caller.webhooks.delete({ id: hook.id });
    await bob.caller.webhooks.delete({ id: bobsHook.id });
  });

  it("retries a failing receiver and marks the delivery failed after the last attempt", async () => {
    receiver.statusFor.set("/failing", 500);
    const hook = await alice.caller.webhooks.create({
      url: `${receiver.url}/failing`,
      events: ["sandbox.deleted"],
    });
    await failedSandboxLifecycle(alice);
    const [failed] = await deliveriesUntil(
      alice,
      hook.id,
      (items) => items.length === 1 && items[0]?.status === "failed",
      "the delivery did not fail",
    );
    expect(failed).toMatchObject({
      kind: "sandbox.deleted",
      attempts: MAX_ATTEMPTS,
      last_status_code: 500,
      last_error: "http_5xx",
      next_attempt_at: null,
    });
    expect(receiver.at("/failing")).toHaveLength(MAX_ATTEMPTS);
    const byStatus = await alice.caller.webhooks.deliveries({ id: hook.id, status: "failed" });
    expect(byStatus.items.map((d) => d.id)).toEqual([failed?.id]);
    const none = await alice.caller.webhooks.deliveries({ id: hook.id, status: "succeeded" });
    expect(none.items).toEqual([]);
    await alice.caller.webhooks.delete({ id: hook.id });
  });

  it("a conversation-scoped webhook gets that conversation's events only", async () => {
    const everything = await alice.caller.webhooks.create({ url: `${receiver.url}/all` });
    const main = await alice.caller.conversations.create({});
    const other = await alice.caller.conversations.create({ sandbox_id: main.sandbox_id });
    // A sandbox's agent server is never a destination.
    const agentServer = await expectValidationError(
      alice.caller.webhooks.create({ url: `${main.conversation_url}` }),
      ["url"],
    );
    // On a veth pair its address is benchmarking space (198.19.x), refused as reserved first.
    expect(agentServer.message).toMatch(/agent server|reserved address/);
    const scoped = await alice.caller.webhooks.create({
      url: `${receiver.url}/scoped`,
      conversation_id: main.id,
      events: ["MessageEvent"],
    });
    expect(scoped.conversation_id).toBe(main.id);
    await alice.caller.conversations.sendMessage({
      conversation_id: other.id,
      ...command("echo for-the-other"),
    });
    await waitForReply(alice.caller, other.id, "for-the-other");
    await alice.caller.conversations.sendMessage({
      conversation_id: main.id,
      ...command("echo for-main"),
    });
    await waitForReply(alice.caller, main.id, "for-main");
    // Both conversations' replies reached the unscoped webhook...
    const replyDelivered = (text: string) => (request: { body: string }) =>
      request.body.includes(text) && request.body.includes('"source":"agent"');
    await pollUntil(
      async () => receiver.at("/all"),
      (requests) =>
        requests.some(replyDelivered("for-the-other")) && requests.some(replyDelivered("for-main")),
      "the replies did not reach the unscoped webhook",
    );
    // ...and the scoped one got main's reply, and never a row for the other conversation's
    // events (rows are committed with the events they carry, so the other's exist by now).
    await pollUntil(
      async () => receiver.at("/scoped"),
      (requests) => requests.some(replyDelivered("for-main")),
      "main's reply did not reach the scoped webhook",
    );
    const otherEvents = await alice.caller.events.search({ id: other.id });
    const otherIds = new Set(otherEvents.items.map((event) => event.id));
    expect(otherIds.size).toBeGreaterThan(0);
    const scopedDeliveries = (await alice.caller.webhooks.deliveries({ id: scoped.id })).items;
    expect(scopedDeliveries.length).toBeGreaterThan(0);
    expect(scopedDeliveries.every((d) => d.kind === "MessageEvent")).toBe(true);
    expect(scopedDeliveries.filter((d) => otherIds.has(d.event_id))).toEqual([]);
    const scopedBodies = receiver.at("/scoped").map((request) => request.payload);
    expect(scopedBodies.every((payload) => payload.conversation_id === main.id)).toBe(true);
    // Another user cannot scope a webhook to alice's conversation.
    await expectAppError(
      bob.caller.webhooks.create({ url: receiver.url, conversation_id: main.id }),
      "CONVERSATION_NOT_FOUND",
    );
    await alice.caller.sandboxes.delete({ id: main.sandbox_id });
    await alice.caller.webhooks.delete({ id: scoped.id });
    await alice.caller.webhooks.delete({ id: everything.id });
  });

  it("validates its input", async () => {
    const hook = await alice.caller.webhooks.create({ url: `${receiver.url}/v` });
    await expectValidationError(alice.caller.webhooks.deliveries({ id: "" }), ["id"]);
    await expectValidationError(alice.caller.webhooks.deliveries({ id: hook.id, limit: 0 }), [
      "limit",
    ]);
    await expectValidationError(
      // @ts-expect-error: not a delivery status
      alice.caller.webhooks.deliveries({ id: hook.id, status: "lost" }),
      ["status"],
    );
    await expectAppError(
      (await t.callerFor(null)).webhooks.deliveries({ id: hook.id }),
      "UNAUTHORIZED",
    );
    await alice.caller.webhooks.delete({ id: hook.id });
  });
});

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentRequest } from "../../test/agent";
import { command, listPage, waitForReply } from "../../test/conversation";
import { expectAppError, expectValidationError } from "../../test/expect-error";
import {
  createTestCore,
  killSandboxFromOutside,
  type TestCore,
  type TestUser,
} from "../../test/harness";
import { pollUntil, waitForStatus } from "../../test/wait";
import type { AppConversation } from "./contracts";

// One real agent server (alice's sandbox) holds both conversations of the file; bob owns nothing
// but tries everything on alice's. Failed starts use a spec whose command exits at once.
let t: TestCore;
let alice: TestUser;
let bob: TestUser;
let main: AppConversation;
let second: AppConversation;
const MISSING_ID = "00000000-0000-4000-8000-000000000000";

beforeAll(async () => {
  t = await createTestCore();
  alice = await t.createUser("alice");
  bob = await t.createUser("bob");
  await t.addSpec({ id: "exits", command: ["/bin/sh", "-c", "exit 3"] });
});

afterAll(async () => {
  await t?.close();
});

async function withLimit<T>(limit: number, work: () => Promise<T>): Promise<T> {
  const before = t.deps.config.maxRunningSandboxes;
  t.deps.config.maxRunningSandboxes = limit;
  try {
    return await work();
  } finally {
    t.deps.config.maxRunningSandboxes = before;
  }
}

/** Bob owns nothing: no sandbox, no conversation was left behind by a refused call. */
async function expectBobOwnsNothing() {
  expect((await bob.caller.sandboxes.search({})).items).toEqual([]);
  expect(listPage(await bob.caller.conversations.list({})).items).toEqual([]);
}

describe("conversations.create", () => {
  it("starts a sandbox, creates the conversation on its agent server and runs the first message", async () => {
    main = await alice.caller.conversations.create({
      title: "  Build things  ",
      metadata: { ticket: "T-1" },
      initial_message: command("echo first-message"),
    });
    expect(main).toMatchObject({
      sandbox_status: "RUNNING",
      title: "Build things",
      created_by_user_id: alice.id,
      archived: false,
      agent: { kind: "shell" },
      metadata: { ticket: "T-1" },
    });
    const sandbox = await alice.caller.sandboxes.get({ id: main.sandbox_id });
    expect(sandbox.status).toBe("RUNNING");
    expect(main.conversation_url).toBe(`${sandbox.agent_server_url}/api/conversations/${main.id}`);
    expect(main.session_api_key).toBe(sandbox.session_api_key);
    // The agent server holds it under the same id, behind the same key.
    const direct = await agentRequest(
      sandbox.agent_server_url ?? "",
      main.session_api_key,
      "GET",
      `/api/conversations/${main.id}`,
    );
    expect(direct.status).toBe(200);
    expect((direct.body as { id: string }).id).toBe(main.id);
    await waitForReply(alice.caller, main.id, "first-message");
  });

  it("adds a conversation to an existing sandbox of the caller's", async () => {
    second = await alice.caller.conversations.create({
      sandbox_id: main.sandbox_id,
      title: "Second one",
      agent: { kind: "shell" },
    });
    expect(second.sandbox_id).toBe(main.sandbox_id);
    expect(second.id).not.toBe(main.id);
    expect((await alice.caller.sandboxes.search({})).items).toHaveLength(1);
  });

  it("validates its input", async () => {
    const create = alice.caller.conversations.create;
    await expectValidationError(create({ title: "x".repeat(10_001) }), ["title"]);
    await expectValidationError(create({ conversation_id: "not-a-uuid" }), ["conversation_id"]);
    // @ts-expect-error: not an agent kind
    await expectValidationError(create({ agent: { kind: "robot" } }), ["agent"]);
    await expectValidationError(create({ initial_message: { content: [] } }), [
      "initial_message",
      "content",
    ]);
    await expectValidationError(create({ metadata: JSON.parse('{"__proto__": "x"}') }), [
      "metadata",
      "__proto__",
    ]);
    await expectValidationError(create({ sandbox_id: "" }), ["sandbox_id"]);
    expect((await alice.caller.sandboxes.search({})).items).toHaveLength(1);
  });

  it("cannot use another user's sandbox (404, as a missing one) or an unknown spec", async () => {
    const foreign = await expectAppError(
      bob.caller.conversations.create({ sandbox_id: main.sandbox_id }),
      "SANDBOX_NOT_FOUND",
    );
    const missing = await expectAppError(
      bob.caller.conversations.create({ sandbox_id: "sb_missing" }),
      "SANDBOX_NOT_FOUND",
    );
    expect(foreign.message.replace(main.sandbox_id, "<id>")).toBe(
      missing.message.replace("sb_missing", "<id>"),
    );
    await expectAppError(
      bob.caller.conversations.create({ sandbox_spec_id: "no-such-spec" }),
      "SANDBOX_SPEC_NOT_FOUND",
    );
    await expectBobOwnsNothing();
    expect(listPage(await alice.caller.conversations.list({})).items).toHaveLength(2);
  });

  it("beyond the running-sandbox limit answers 429 and leaves nothing behind", async () => {
    await withLimit(1, () =>
      expectAppError(bob.caller.conversations.create({}), "SANDBOX_LIMIT_REACHED"),
    );
    await expectBobOwnsNothing();
  });

  it("removes the sandbox it started when that sandbox fails (503)", async () => {
    const failure = await expectAppError(
      bob.caller.conversations.create({ sandbox_spec_id: "exits" }),
      "SANDBOX_START_FAILED",
    );
    expect(failure.details).toMatchObject({ sandbox_status: "ERROR" });
    await expectBobOwnsNothing();
    const sandboxes = await t.runtime.list();
    expect(sandboxes.map((s) => s.sandboxId)).toEqual([main.sandbox_id]);
  });

  it("refuses a caller without a valid key", async () => {
    await expectAppError((await t.callerFor(null)).conversations.create({}), "UNAUTHORIZED");
    await expectBobOwnsNothing();
  });
});

describe("conversations.get", () => {
  it("answers the owner with the live execution status", async () => {
    const read = await alice.caller.conversations.get({ id: main.id });
    expect(read).toMatchObject({
      id: main.id,
      sandbox_status: "RUNNING",
      conversation_url: main.conversation_url,
      session_api_key: main.session_api_key,
      title: "Build things",
    });
    expect(read.execution_status).toEqual(expect.any(String));
  });

  it("accepts the id in upper case", async () => {
    expect((await alice.caller.conversations.get({ id: main.id.toUpperCase() })).id).toBe(main.id);
  });

  it("answers another user's conversation exactly like a missing one (404)", async () => {
    const foreign = await expectAppError(
      bob.caller.conversations.get({ id: main.id }),
      "CONVERSATION_NOT_FOUND",
    );
    const missing = await expectAppError(
      bob.caller.conversations.get({ id: MISSING_ID }),
      "CONVERSATION_NOT_FOUND",
    );
    expect(foreign.message.replace(main.id, "<id>")).toBe(
      missing.message.replace(MISSING_ID, "<id>"),
    );
  });

  it("validates the id (a UUID)", async () => {
    await expectValidationError(alice.caller.conversations.get({ id: "not-a-uuid" }), ["id"]);
    await expectAppError(
      (await t.callerFor(null)).conversations.get({ id: main.id }),
      "UNAUTHORIZED",
    );
  });
});

describe("conversations.list", () => {
  const ids = async (input: Parameters<typeof alice.caller.conversations.list>[0]) =>
    listPage(await alice.caller.conversations.list(input)).items.map((c) => c.id);

  it("lists only the caller's conversations, newest first by default", async () => {
    expect(await ids({})).toEqual([second.id, main.id]);
    expect(listPage(await bob.caller.conversations.list({})).items).toEqual([]);
  });

  it("filters and sorts", async () => {
    expect(await ids({ sort_order: "CREATED_AT" })).toEqual([main.id, second.id]);
    expect(await ids({ sandbox_id: main.sandbox_id })).toHaveLength(2);
    expect(await ids({ sandbox_id: "sb_other" })).toEqual([]);
    expect(await ids({ title__contains: "Second" })).toEqual([second.id]);
    expect(await ids({ archived: "false" })).toHaveLength(2);
    expect(await ids({ archived: "true" })).toEqual([]);
    const sorted = await ids({ sort_order: "UPDATED_AT_DESC" });
    expect(sorted.sort()).toEqual([main.id, second.id].sort());
  });

  it("pages with an opaque cursor", async () => {
    const first = listPage(await alice.caller.conversations.list({ limit: 1 }));
    expect(first.items.map((c) => c.id)).toEqual([second.id]);
    const next = listPage(
      await alice.caller.conversations.list({
        limit: 1,
        page_id: first.next_page_id ?? undefined,
      }),
    );
    expect(next.items.map((c) => c.id)).toEqual([main.id]);
    expect(next.next_page_id).toBeNull();
  });

  it("validates its input", async () => {
    const list = alice.caller.conversations.list;
    await expectValidationError(list({ limit: 0 }), ["limit"]);
    await expectValidationError(list({ page_id: "garbage" }), ["page_id"]);
    // @ts-expect-error: not a sort order
    await expectValidationError(list({ sort_order: "SIDEWAYS" }), ["sort_order"]);
    // @ts-expect-error: a query-string boolean is "true" or "false"
    await expectValidationError(list({ archived: "maybe" }), ["archived"]);
    await expectValidationError(list({ title__contains: "" }), ["title__contains"]);
    await expectAppError((await t.callerFor(null)).conversations.list({}), "UNAUTHORIZED");
  });
});

describe("conversations.sendMessage", () => {
  it("forwards the message to the agent server, which runs it", async () => {
    const sent = await alice.caller.conversations.sendMessage({
      conversation_id: main.id,
      ...command("echo via-the-proxy"),
    });
    expect(sent).toEqual({ success: true, sandbox_status: "RUNNING", message: null });
    await waitForReply(alice.caller, main.id, "via-the-proxy");
  });

  it("accepts a single text content object, as the agent server does", async () => {
    await alice.caller.conversations.sendMessage({
      conversation_id: second.id,
      content: { type: "text", text: "echo single-object" },
      run: true,
    });
    await waitForReply(alice.caller, second.id, "single-object");
  });

  it("another user's conversation is 404 and nothing reaches the agent", async () => {
    await expectAppError(
      bob.caller.conversations.sendMessage({ conversation_id: main.id, ...command("echo bob") }),
      "CONVERSATION_NOT_FOUND",
    );
    await expectAppError(
      alice.caller.conversations.sendMessage({ conversation_id: MISSING_ID, ...command("x") }),
      "CONVERSATION_NOT_FOUND",
    );
  });

  it("validates the body with the agent server's schema, and the id", async () => {
    const send = alice.caller.conversations.sendMessage;
    await expectValidationError(send({ conversation_id: "nope", ...command("x") }), [
      "conversation_id",
    ]);
    await expectValidationError(
      // @ts-expect-error: only users send messages
      send({ conversation_id: main.id, role: "assistant", content: [{ type: "text", text: "x" }] }),
      ["role"],
    );
    await expectValidationError(send({ conversation_id: main.id, content: [] }), ["content"]);
    await expectValidationError(
      // @ts-expect-error: run is a boolean, never coerced
      send({ conversation_id: main.id, content: [{ type: "text", text: "x" }], run: "yes" }),
      ["run"],
    );
    await expectAppError(
      (await t.callerFor(null)).conversations.sendMessage({
        conversation_id: main.id,
        ...command("x"),
      }),
      "UNAUTHORIZED",
    );
  });

  it("while the sandbox is PAUSED: 409 and a resume is needed; no conversation can be added", async () => {
    await alice.caller.sandboxes.pause({ id: main.sandbox_id });
    const refusal = await expectAppError(
      alice.caller.conversations.sendMessage({ conversation_id: main.id, ...command("echo p") }),
      "SANDBOX_NOT_RUNNING",
    );
    expect(refusal.details).toMatchObject({ sandbox_status: "PAUSED" });
    expect(refusal.message).toContain("resume");
    await expectAppError(
      alice.caller.conversations.create({ sandbox_id: main.sandbox_id }),
      "SANDBOX_NOT_RUNNING",
    );
    const read = await alice.caller.conversations.get({ id: main.id });
    expect(read).toMatchObject({
      sandbox_status: "PAUSED",
      conversation_url: null,
    });
    expect(read.session_api_key).toBe(main.session_api_key);
    await alice.caller.sandboxes.resume({ id: main.sandbox_id });
  });

  it("while the sandbox is in ERROR (its agent server died): 503; after a resume it works again", async () => {
    expect(await killSandboxFromOutside(t, main.sandbox_id)).toBeGreaterThan(0);
    await waitForStatus(alice.caller, main.sandbox_id, "ERROR");
    const refusal = await expectAppError(
      alice.caller.conversations.sendMessage({ conversation_id: main.id, ...command("echo e") }),
      "SANDBOX_UNAVAILABLE",
    );
    expect(refusal.details).toMatchObject({ sandbox_status: "ERROR" });
    expect((await alice.caller.sandboxes.resume({ id: main.sandbox_id })).status).toBe("RUNNING");
    await alice.caller.conversations.sendMessage({
      conversation_id: main.id,
      ...command("echo back-again"),
    });
    await waitForReply(alice.caller, main.id, "back-again");
  });

  it("once the sandbox is deleted the conversation is archived: 410", async () => {
    await alice.caller.sandboxes.delete({ id: main.sandbox_id });
    const read = await alice.caller.conversations.get({ id: main.id });
    expect(read).toMatchObject({
      archived: true,
      sandbox_status: "MISSING",
      conversation_url: null,
      session_api_key: null,
    });
    await expectAppError(
      alice.caller.conversations.sendMessage({ conversation_id: main.id, ...command("echo a") }),
      "CONVERSATION_ARCHIVED",
    );
    const archived = await pollUntil(
      async () => listPage(await alice.caller.conversations.list({ archived: "true" })),
      (page) => page.items.length === 2,
      "both conversations archived",
    );
    expect(archived.items.map((c) => c.id).sort()).toEqual([main.id, second.id].sort());
    expect(listPage(await alice.caller.conversations.list({ archived: "false" })).items).toEqual(
      [],
    );
    await expectAppError(
      alice.caller.conversations.create({ sandbox_id: main.sandbox_id }),
      "SANDBOX_NOT_FOUND",
    );
  });
});

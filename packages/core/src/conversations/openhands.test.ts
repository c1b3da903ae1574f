import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentRequest } from "../../test/agent";
import { waitForReply } from "../../test/conversation";
import { expectAppError, expectValidationError } from "../../test/expect-error";
import { createTestCore, type TestCore, type TestUser } from "../../test/harness";
import { pollUntil } from "../../test/wait";
import type { AppConversation } from "./contracts";
import type { StartedAppConversation } from "./start-contracts";

// OpenHands' side of the conversations API, through tRPC callers: start tasks, batch reads,
// search and count, rename, delete, and the events search. One sandbox of alice's carries most
// conversations; bob owns nothing and must see nothing of hers.
let t: TestCore;
let alice: TestUser;
let bob: TestUser;
let first: StartedAppConversation;

const hex = (id: string) => id.replaceAll("-", "");
const MISSING_ID = "00000000-0000-4000-8000-000000000000";

function page<T>(answer: T[] | { items: T[] } | (T | null)[]): T[] {
  if (Array.isArray(answer)) throw new Error("expected a page, got a batch");
  return answer.items;
}

beforeAll(async () => {
  t = await createTestCore();
  alice = await t.createUser("alice");
  bob = await t.createUser("bob");
  await t.addSpec({ id: "exits", command: ["/bin/sh", "-c", "exit 3"] });
  // OpenHands' create body: explicit nulls, no role, no run.
  first = await alice.caller.conversations.create({
    title: "first one",
    selected_repository: "octo/repo",
    selected_branch: null,
    git_provider: "github",
    trigger: "gui",
    parent_conversation_id: null,
    sandbox_id: null,
    llm_model: null,
    initial_message: { content: [{ type: "text", text: "echo started-by-openhands" }] },
  });
});

afterAll(async () => {
  await t?.close();
});

describe("conversations.create as a start task", () => {
  it("answers the conversation and its READY start task in one object; the message ran the agent", async () => {
    expect(first).toMatchObject({
      status: "READY",
      detail: null,
      app_conversation_id: first.id,
      sandbox_status: "RUNNING",
      selected_repository: "octo/repo",
      git_provider: "github",
      trigger: "gui",
      agent_kind: "openhands",
      pr_number: [],
      sub_conversation_ids: [],
      request: { title: "first one", selected_repository: "octo/repo", sandbox_id: null },
    });
    expect(first.agent_server_url).toBe(first.conversation_url?.split("/api/")[0]);
    // No `run` in the initial message: the agent ran it anyway, as OpenHands' agent server does.
    await waitForReply(alice.caller, first.id, "started-by-openhands");
  });

  it("reads tasks by id, aligned, null for unknown and other users' ids; hex ids work", async () => {
    const tasks = await alice.caller.conversations.getStartTasks({
      ids: [hex(first.id), MISSING_ID],
    });
    expect(tasks).toHaveLength(2);
    expect(tasks[0]).toMatchObject({
      id: first.id,
      status: "READY",
      app_conversation_id: first.id,
    });
    expect(tasks[1]).toBeNull();
    expect(await bob.caller.conversations.getStartTasks({ ids: [first.id] })).toEqual([null]);
    await expectValidationError(alice.caller.conversations.getStartTasks({ ids: ["nope"] }), [
      "ids",
    ]);
    const tooMany = Array.from({ length: 101 }, () => MISSING_ID);
    await expectValidationError(alice.caller.conversations.getStartTasks({ ids: tooMany }), [
      "ids",
    ]);
  });

  it("takes a client-chosen id once (32 hex digits answered dashed), and refuses it again", async () => {
    const id = crypto.randomUUID();
    const chosen = await alice.caller.conversations.create({
      conversation_id: hex(id).toUpperCase(),
      sandbox_id: first.sandbox_id,
    });
    expect(chosen.id).toBe(id);
    await expectAppError(
      alice.caller.conversations.create({ conversation_id: id, sandbox_id: first.sandbox_id }),
      "CONVERSATION_EXISTS",
    );
  });

  it("leaves a readable ERROR task, and nothing else, when the sandbox cannot start", async () => {
    const failure = await expectAppError(
      bob.caller.conversations.create({ sandbox_spec_id: "exits", title: "doomed" }),
      "SANDBOX_START_FAILED",
    );
    const taskId = String(failure.details?.start_task_id);
    const [task] = await bob.caller.conversations.getStartTasks({ ids: [taskId] });
    expect(task).toMatchObject({ status: "ERROR", app_conversation_id: null });
    expect(task?.detail).toBe(failure.message);
    expect(task?.sandbox_id).toMatch(/^sb_/);
    expect(page(await bob.caller.conversations.list({}))).toEqual([]);
    expect((await bob.caller.sandboxes.search({})).items).toEqual([]);
    const errors = await bob.caller.conversations.searchStartTasks({});
    expect(errors.items.map((item) => item.status)).toEqual(["ERROR"]);
  });

  it("answers every state of the task from stream-start, ending READY", async () => {
    const states = await alice.caller.conversations.streamStart({ sandbox_id: first.sandbox_id });
    expect(states.map((state) => state.status)).toEqual([
      "WORKING",
      "WAITING_FOR_SANDBOX",
      "STARTING_CONVERSATION",
      "READY",
    ]);
    const ready = states.at(-1);
    expect(ready?.app_conversation_id).toBe(ready?.id);
    const failed = await bob.caller.conversations.streamStart({ sandbox_spec_id: "exits" });
    expect(failed.at(-1)).toMatchObject({ status: "ERROR" });
    await expectAppError(
      bob.caller.conversations.streamStart({ parent_conversation_id: first.id }),
      "CONVERSATION_NOT_FOUND",
    );
  });

  it("searches and counts start tasks by creation time and conversation", async () => {
    const [task] = await alice.caller.conversations.getStartTasks({ ids: [first.id] });
    // The task began before its conversation existed.
    const since = task?.created_at ?? "";
    expect(Date.parse(since)).toBeLessThanOrEqual(Date.parse(first.created_at));
    const found = await alice.caller.conversations.searchStartTasks({
      created_at__gte: since,
      sort_order: "CREATED_AT",
      limit: 1,
    });
    expect(found.items[0]?.id).toBe(first.id);
    expect(found.next_page_id).not.toBeNull();
    expect(
      await alice.caller.conversations.countStartTasks({ conversation_id__eq: hex(first.id) }),
    ).toBe(1);
    const later = new Date(Date.now() + 60_000).toISOString();
    expect(await alice.caller.conversations.countStartTasks({ created_at__gte: later })).toBe(0);
    await expectValidationError(
      alice.caller.conversations.countStartTasks({ created_at__gte: "yesterday" }),
      ["created_at__gte"],
    );
  });
});

describe("batch read, search and count", () => {
  let titled: AppConversation;

  beforeAll(async () => {
    titled = await alice.caller.conversations.create({
      sandbox_id: first.sandbox_id,
      title: "a title first in order",
      parent_conversation_id: first.id,
    });
  });

  it("reads conversations by id, aligned with ids, null where unknown or not yours", async () => {
    const batch = await alice.caller.conversations.list({
      ids: [first.id, MISSING_ID, hex(titled.id)],
    });
    if (!Array.isArray(batch)) throw new Error("expected a batch");
    expect(batch.map((item) => item?.id ?? null)).toEqual([first.id, null, titled.id]);
    expect(batch[0]?.execution_status).not.toBeNull();
    expect(await bob.caller.conversations.list({ ids: [first.id] })).toEqual([null]);
    await expectValidationError(alice.caller.conversations.list({ ids: "not-a-uuid" }), ["ids"]);
  });

  it("searches with OpenHands' filters and sort orders; sub-conversations only when asked", async () => {
    const inSandbox = await alice.caller.conversations.search({
      sandbox_id__eq: first.sandbox_id,
      sort_order: "TITLE",
    });
    expect(inSandbox.items.map((c) => c.id)).not.toContain(titled.id);
    const withSubs = await alice.caller.conversations.search({
      sandbox_id__eq: first.sandbox_id,
      include_sub_conversations: "true",
      sort_order: "TITLE_DESC",
    });
    expect(withSubs.items[0]?.id).toBe(first.id);
    expect(withSubs.items.map((c) => c.id)).toContain(titled.id);
    expect(withSubs.items.find((c) => c.id === titled.id)?.parent_conversation_id).toBe(first.id);
    const future = new Date(Date.now() + 60_000).toISOString();
    expect((await alice.caller.conversations.search({ created_at__gte: future })).items).toEqual(
      [],
    );
    expect(
      await alice.caller.conversations.count({
        include_sub_conversations: "true",
        created_at__lt: future,
      }),
    ).toBe(withSubs.items.length);
    expect(await bob.caller.conversations.count({})).toBe(0);
    await expectValidationError(
      alice.caller.conversations.search({ sandbox_id: "sb_a", sandbox_id__eq: "sb_b" }),
      ["sandbox_id__eq"],
    );
  });

  it("renames and changes only the fields a PATCH names; null clears", async () => {
    const renamed = await alice.caller.conversations.update({
      id: hex(titled.id),
      title: "renamed",
      public: true,
    });
    expect(renamed).toMatchObject({ id: titled.id, title: "renamed", public: true });
    const cleared = await alice.caller.conversations.update({
      id: titled.id,
      public: null,
    });
    expect(cleared).toMatchObject({ title: "renamed", public: null });
    await expectAppError(
      bob.caller.conversations.update({ id: titled.id, title: "mine" }),
      "CONVERSATION_NOT_FOUND",
    );
  });
});

describe("conversations created straight on an agent server (OpenHands' SDK)", () => {
  it("are registered to the sandbox's owner on the first read by id, and followed", async () => {
    const sandbox = await alice.caller.sandboxes.get({ id: first.sandbox_id });
    const id = crypto.randomUUID();
    const created = await agentRequest(
      sandbox.agent_server_url ?? "",
      sandbox.session_api_key,
      "POST",
      "/api/conversations",
      {
        conversation_id: id,
        agent: { kind: "shell" },
        initial_message: { content: [{ type: "text", text: "echo made-directly" }], run: true },
      },
    );
    expect(created.status).toBeLessThan(300);
    // Bob has no agent server holding it: nothing is registered for him.
    expect(await bob.caller.conversations.list({ ids: [id] })).toEqual([null]);
    const [found] = (await alice.caller.conversations.list({
      ids: [hex(id)],
    })) as AppConversation[];
    expect(found).toMatchObject({ id, sandbox_id: first.sandbox_id, created_by_user_id: alice.id });
    await waitForReply(alice.caller, id, "made-directly");
    expect(await bob.caller.conversations.list({ ids: [id] })).toEqual([null]);
    expect((await alice.caller.conversations.get({ id })).id).toBe(id);
  });
});

describe("events at OpenHands' path", () => {
  it("filters by kind and time, pages and counts the stored events", async () => {
    const all = await alice.caller.events.searchByConversation({ conversation_id: first.id });
    expect(all.items.length).toBeGreaterThan(2);
    const messages = await alice.caller.events.searchByConversation({
      conversation_id: hex(first.id),
      kind__eq: "MessageEvent",
      sort_order: "TIMESTAMP_DESC",
      limit: 1,
    });
    expect(messages.items[0]?.kind).toBe("MessageEvent");
    expect(messages.next_page_id).not.toBeNull();
    const oldest = all.items[0]?.timestamp ?? "";
    const after = await alice.caller.events.searchByConversation({
      conversation_id: first.id,
      timestamp__gte: all.items[1]?.timestamp,
    });
    expect(after.items.map((e) => e.id)).toEqual(all.items.slice(1).map((e) => e.id));
    expect(
      await alice.caller.events.count({ conversation_id: first.id, timestamp__lt: oldest }),
    ).toBe(0);
    expect(await alice.caller.events.count({ conversation_id: first.id })).toBe(all.items.length);
    await expectValidationError(
      alice.caller.events.count({ conversation_id: first.id, kind__eq: "NoSuchEvent" as never }),
      ["kind__eq"],
    );
    await expectAppError(
      bob.caller.events.searchByConversation({ conversation_id: first.id }),
      "CONVERSATION_NOT_FOUND",
    );
  });
});

describe("conversations.delete", () => {
  it("keeps a shared sandbox, and deletes a sandbox the conversation started for itself", async () => {
    const shared = await alice.caller.conversations.create({ sandbox_id: first.sandbox_id });
    expect(await alice.caller.conversations.delete({ id: shared.id })).toEqual({
      success: true,
    });
    expect((await alice.caller.sandboxes.get({ id: first.sandbox_id })).status).toBe("RUNNING");
    expect(await alice.caller.conversations.list({ ids: [shared.id] })).toEqual([null]);

    const own = await alice.caller.conversations.create({});
    await expectAppError(bob.caller.conversations.delete({ id: own.id }), "CONVERSATION_NOT_FOUND");
    await alice.caller.conversations.delete({ id: hex(own.id) });
    await expectAppError(alice.caller.sandboxes.get({ id: own.sandbox_id }), "SANDBOX_NOT_FOUND");
    await expectAppError(alice.caller.events.search({ id: own.id }), "CONVERSATION_NOT_FOUND");
    // The start task stays, as the record of the create.
    const [task] = await alice.caller.conversations.getStartTasks({ ids: [own.id] });
    expect(task?.status).toBe("READY");
    await pollUntil(
      () => t.store.conversationEvents.count({ conversationId: own.id }),
      (n) => n === 0,
      "events of the deleted conversation stayed",
    );
  });
});

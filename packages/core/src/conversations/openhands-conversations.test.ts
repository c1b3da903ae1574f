import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentRequest } from "../../test/agent";
import { expectAppError, expectValidationError } from "../../test/expect-error";
import { createTestCore, type TestCore, type TestUser } from "../../test/harness";
import type { AppConversation } from "./contracts";
import type { StartTask } from "./start-contracts";

// The OpenHands-shaped procedures: start tasks, search/count, batch reads, update and delete.
// One real agent server: the sandbox `main`'s create started; `second` and `sub` join it.
let t: TestCore;
let alice: TestUser;
let bob: TestUser;
let main: AppConversation;
let second: AppConversation;
let sub: AppConversation;
let streamed: StartTask[];
const MAIN_ID = "0f0e0d0c-0b0a-4908-8706-050403020100";
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

const ids = (items: ({ id: string } | null)[]) => items.map((item) => item?.id ?? null);

describe("conversations.streamStart", () => {
  it("creates the conversation and answers every state of its start task, ending READY", async () => {
    // OpenHands serialises ids without dashes; any case is accepted.
    streamed = await alice.caller.conversations.streamStart({
      conversation_id: MAIN_ID.replaceAll("-", "").toUpperCase(),
      title: "Beta main",
    });
    expect(streamed.map((task) => task.status)).toEqual([
      "WORKING",
      "WAITING_FOR_SANDBOX",
      "STARTING_CONVERSATION",
      "READY",
    ]);
    const ready = streamed.at(-1);
    expect(ready).toMatchObject({
      id: MAIN_ID,
      created_by_user_id: alice.id,
      app_conversation_id: MAIN_ID,
      sandbox_id: expect.stringMatching(/^sb_/),
      agent_server_url: expect.stringMatching(/^http:\/\/(127\.0\.0\.1|198\.19\.\d+\.\d+):/),
      detail: null,
    });
    expect(ready?.request).toMatchObject({ conversation_id: MAIN_ID, title: "Beta main" });
    main = await alice.caller.conversations.get({ id: MAIN_ID });
    expect(main).toMatchObject({ sandbox_id: ready?.sandbox_id, sandbox_status: "RUNNING" });
  });

  it("refuses an id that exists already (409), before any task", async () => {
    const before = await alice.caller.conversations.countStartTasks({});
    await expectAppError(
      alice.caller.conversations.streamStart({ conversation_id: MAIN_ID }),
      "CONVERSATION_EXISTS",
    );
    expect(await alice.caller.conversations.countStartTasks({})).toBe(before);
  });

  it("ends in ERROR with the reason when the sandbox fails, leaving no conversation or sandbox", async () => {
    const states = await alice.caller.conversations.streamStart({ sandbox_spec_id: "exits" });
    const last = states.at(-1);
    expect(states[0]?.status).toBe("WORKING");
    expect(last).toMatchObject({ status: "ERROR", app_conversation_id: null });
    expect(last?.detail).toMatch(/ERROR/);
    await expectAppError(
      alice.caller.conversations.get({ id: last?.id ?? "" }),
      "CONVERSATION_NOT_FOUND",
    );
    expect((await alice.caller.sandboxes.search({})).items.map((s) => s.id)).toEqual([
      main.sandbox_id,
    ]);
  });

  it("records another user's sandbox as a failed task, exactly like a missing sandbox", async () => {
    const foreign = await bob.caller.conversations.streamStart({ sandbox_id: main.sandbox_id });
    const missing = await bob.caller.conversations.streamStart({ sandbox_id: "sb_missing" });
    expect(foreign.at(-1)?.status).toBe("ERROR");
    expect(foreign.at(-1)?.detail?.replace(main.sandbox_id, "<id>")).toBe(
      missing.at(-1)?.detail?.replace("sb_missing", "<id>"),
    );
    expect((await bob.caller.conversations.search({})).items).toEqual([]);
  });

  it("validates its input", async () => {
    const stream = alice.caller.conversations.streamStart;
    await expectValidationError(stream({ conversation_id: "nope" }), ["conversation_id"]);
    await expectValidationError(stream({ title: "x".repeat(10_001) }), ["title"]);
    await expectValidationError(stream({ pr_number: [1.5] }), ["pr_number", 0]);
    await expectAppError(
      bob.caller.conversations.streamStart({ parent_conversation_id: MAIN_ID }),
      "CONVERSATION_NOT_FOUND",
    );
    await expectAppError((await t.callerFor(null)).conversations.streamStart({}), "UNAUTHORIZED");
  });
});

describe("conversations.create with OpenHands' fields", () => {
  it("adds conversations to the sandbox, a sub-conversation among them", async () => {
    second = await alice.caller.conversations.create({
      sandbox_id: main.sandbox_id,
      title: "Alpha second",
      selected_repository: "acme/widgets",
      pr_number: [7],
    });
    expect(second).toMatchObject({
      status: "READY",
      app_conversation_id: second.id,
      selected_repository: "acme/widgets",
      pr_number: [7],
    });
    sub = await alice.caller.conversations.create({
      sandbox_id: main.sandbox_id,
      title: "Gamma sub",
      parent_conversation_id: main.id,
    });
    expect(sub.parent_conversation_id).toBe(main.id);
  });

  it("a failed create names its start task, which stays in ERROR", async () => {
    const failure = await expectAppError(
      alice.caller.conversations.create({ sandbox_spec_id: "exits" }),
      "SANDBOX_START_FAILED",
    );
    const taskId = String(failure.details?.start_task_id);
    const [task] = await alice.caller.conversations.getStartTasks({ ids: [taskId] });
    expect(task).toMatchObject({ id: taskId, status: "ERROR", app_conversation_id: null });
  });
});

describe("conversations.search and conversations.count", () => {
  const search = (input: Parameters<typeof alice.caller.conversations.search>[0]) =>
    alice.caller.conversations.search(input).then((page) => ids(page.items));

  it("search filters like the list, without sub-conversations unless asked", async () => {
    expect(await search({})).toEqual([second.id, main.id]);
    expect(await search({ include_sub_conversations: "true" })).toEqual([
      sub.id,
      second.id,
      main.id,
    ]);
    expect(await search({ sandbox_id__eq: main.sandbox_id })).toEqual([second.id, main.id]);
    expect(await search({ title__contains: "main" })).toEqual([main.id]);
    expect(await search({ created_at__gte: second.created_at })).toEqual([second.id]);
    expect(await search({ created_at__lt: second.created_at })).toEqual([main.id]);
    expect(await search({ updated_at__gte: "2999-01-01T00:00:00Z" })).toEqual([]);
    expect(await search({ archived: "true" })).toEqual([]);
    expect((await bob.caller.conversations.search({})).items).toEqual([]);
  });

  it("search sorts by title and pages", async () => {
    expect(await search({ sort_order: "TITLE" })).toEqual([second.id, main.id]);
    expect(await search({ sort_order: "TITLE_DESC" })).toEqual([main.id, second.id]);
    const first = await alice.caller.conversations.search({ sort_order: "TITLE", limit: 1 });
    const next = await alice.caller.conversations.search({
      sort_order: "TITLE",
      limit: 1,
      page_id: first.next_page_id ?? undefined,
    });
    expect([...ids(first.items), ...ids(next.items)]).toEqual([second.id, main.id]);
    expect(next.next_page_id).toBeNull();
  });

  it("count answers how many the same filters match", async () => {
    const count = alice.caller.conversations.count;
    expect(await count({})).toBe(2);
    expect(await count({ include_sub_conversations: "true" })).toBe(3);
    expect(await count({ title__contains: "Alpha" })).toBe(1);
    expect(await count({ sandbox_id: "sb_other" })).toBe(0);
    expect(await bob.caller.conversations.count({})).toBe(0);
  });

  it("validate their input", async () => {
    const conflicting = { sandbox_id: main.sandbox_id, sandbox_id__eq: "sb_other" };
    await expectValidationError(alice.caller.conversations.search(conflicting), ["sandbox_id__eq"]);
    await expectValidationError(alice.caller.conversations.count(conflicting), ["sandbox_id__eq"]);
    await expectValidationError(alice.caller.conversations.search({ created_at__gte: "soon" }), [
      "created_at__gte",
    ]);
    await expectValidationError(alice.caller.conversations.count({ updated_at__lt: "later" }), [
      "updated_at__lt",
    ]);
    await expectValidationError(
      // @ts-expect-error: not a sort order
      alice.caller.conversations.search({ sort_order: "RANDOM" }),
      ["sort_order"],
    );
    await expectValidationError(alice.caller.conversations.search({ limit: 101 }), ["limit"]);
    const anonymous = await t.callerFor(null);
    await expectAppError(anonymous.conversations.search({}), "UNAUTHORIZED");
    await expectAppError(anonymous.conversations.count({}), "UNAUTHORIZED");
  });
});

describe("conversations.list with ids (batch read)", () => {
  it("answers an array aligned with ids, null for unknown and other users' ids", async () => {
    const batch = await alice.caller.conversations.list({ ids: [main.id, MISSING_ID, second.id] });
    expect(Array.isArray(batch)).toBe(true);
    expect(ids(batch as AppConversation[])).toEqual([main.id, null, second.id]);
    expect(await bob.caller.conversations.list({ ids: [main.id] })).toEqual([null]);
  });

  it("validates the ids", async () => {
    await expectValidationError(alice.caller.conversations.list({ ids: [] }), ["ids"]);
    await expectValidationError(alice.caller.conversations.list({ ids: ["nope"] }), ["ids", 0]);
  });
});

describe("start tasks", () => {
  it("getStartTasks answers an array aligned with ids, null for unknown and other users' ids", async () => {
    const tasks = await alice.caller.conversations.getStartTasks({
      ids: [MAIN_ID, MISSING_ID, second.id],
    });
    expect(ids(tasks)).toEqual([MAIN_ID, null, second.id]);
    expect(tasks[0]).toEqual(streamed.at(-1));
    // One id may come as a string, as a single query parameter does.
    expect(ids(await alice.caller.conversations.getStartTasks({ ids: MAIN_ID }))).toEqual([
      MAIN_ID,
    ]);
    expect(await bob.caller.conversations.getStartTasks({ ids: [MAIN_ID] })).toEqual([null]);
  });

  it("searchStartTasks and countStartTasks see only the caller's tasks, filtered and paged", async () => {
    const all = await alice.caller.conversations.searchStartTasks({});
    expect(all.items.map((task) => task.status).sort()).toEqual([
      "ERROR",
      "ERROR",
      "READY",
      "READY",
      "READY",
    ]);
    expect(await alice.caller.conversations.countStartTasks({})).toBe(5);
    const one = await alice.caller.conversations.searchStartTasks({ conversation_id__eq: MAIN_ID });
    expect(ids(one.items)).toEqual([MAIN_ID]);
    expect(await alice.caller.conversations.countStartTasks({ conversation_id__eq: MAIN_ID })).toBe(
      1,
    );
    const future = { created_at__gte: "2999-01-01T00:00:00Z" };
    expect((await alice.caller.conversations.searchStartTasks(future)).items).toEqual([]);
    expect(await alice.caller.conversations.countStartTasks(future)).toBe(0);
    const oldestFirst = await alice.caller.conversations.searchStartTasks({
      sort_order: "CREATED_AT",
    });
    expect(ids(oldestFirst.items)).toEqual(ids(all.items).reverse());
    const seen: (string | null)[] = [];
    let pageId: string | undefined;
    for (let pages = 0; pages < 10; pages++) {
      const page = await alice.caller.conversations.searchStartTasks({ limit: 2, page_id: pageId });
      seen.push(...ids(page.items));
      if (page.next_page_id === null) break;
      pageId = page.next_page_id;
    }
    expect(seen).toEqual(ids(all.items));
    // Bob's tasks are his two failed ones only.
    const bobs = await bob.caller.conversations.searchStartTasks({});
    expect(bobs.items.map((task) => task.status)).toEqual(["ERROR", "ERROR"]);
    expect(await bob.caller.conversations.countStartTasks({ conversation_id__eq: MAIN_ID })).toBe(
      0,
    );
  });

  it("validate their input", async () => {
    const conversations = alice.caller.conversations;
    await expectValidationError(conversations.getStartTasks({ ids: [] }), ["ids"]);
    await expectValidationError(conversations.getStartTasks({ ids: ["nope"] }), ["ids", 0]);
    const tooMany = Array.from({ length: 101 }, () => MISSING_ID);
    await expectValidationError(conversations.getStartTasks({ ids: tooMany }), ["ids"]);
    await expectValidationError(conversations.searchStartTasks({ created_at__gte: "x" }), [
      "created_at__gte",
    ]);
    await expectValidationError(conversations.searchStartTasks({ conversation_id__eq: "x" }), [
      "conversation_id__eq",
    ]);
    await expectValidationError(conversations.countStartTasks({ conversation_id__eq: "x" }), [
      "conversation_id__eq",
    ]);
    const anonymous = await t.callerFor(null);
    await expectAppError(anonymous.conversations.getStartTasks({ ids: [MAIN_ID] }), "UNAUTHORIZED");
    await expectAppError(anonymous.conversations.searchStartTasks({}), "UNAUTHORIZED");
    await expectAppError(anonymous.conversations.countStartTasks({}), "UNAUTHORIZED");
  });
});

describe("conversations.update", () => {
  it("changes only the fields given; null or an empty title clears it", async () => {
    const renamed = await alice.caller.conversations.update({
      id: second.id,
      title: "  Alpha renamed ",
      public: true,
    });
    expect(renamed).toMatchObject({
      id: second.id,
      title: "Alpha renamed",
      public: true,
      selected_repository: "acme/widgets",
    });
    const cleared = await alice.caller.conversations.update({
      id: second.id,
      selected_repository: null,
    });
    expect(cleared).toMatchObject({ title: "Alpha renamed", selected_repository: null });
    expect(
      (await alice.caller.conversations.update({ id: second.id, title: "" })).title,
    ).toBeNull();
    expect((await alice.caller.conversations.get({ id: second.id })).title).toBeNull();
  });

  it("another user's conversation is 404, like a missing one, and does not change", async () => {
    await expectAppError(
      bob.caller.conversations.update({ id: main.id, title: "mine now" }),
      "CONVERSATION_NOT_FOUND",
    );
    await expectAppError(
      alice.caller.conversations.update({ id: MISSING_ID, title: "x" }),
      "CONVERSATION_NOT_FOUND",
    );
    expect((await alice.caller.conversations.get({ id: main.id })).title).toBe("Beta main");
  });

  it("validates its input", async () => {
    const update = alice.caller.conversations.update;
    await expectValidationError(update({ id: "nope" }), ["id"]);
    await expectValidationError(update({ id: main.id, title: "x".repeat(10_001) }), ["title"]);
    // @ts-expect-error: not a boolean
    await expectValidationError(update({ id: main.id, public: "yes" }), ["public"]);
    await expectAppError(
      (await t.callerFor(null)).conversations.update({ id: main.id }),
      "UNAUTHORIZED",
    );
  });
});

describe("conversations.delete", () => {
  it("another user cannot delete it (404); bad ids are 422", async () => {
    await expectAppError(
      bob.caller.conversations.delete({ id: main.id }),
      "CONVERSATION_NOT_FOUND",
    );
    await expectAppError(
      alice.caller.conversations.delete({ id: MISSING_ID }),
      "CONVERSATION_NOT_FOUND",
    );
    await expectValidationError(alice.caller.conversations.delete({ id: "nope" }), ["id"]);
    await expectAppError(
      (await t.callerFor(null)).conversations.delete({ id: main.id }),
      "UNAUTHORIZED",
    );
    expect((await alice.caller.conversations.get({ id: main.id })).id).toBe(main.id);
  });

  it("removes a conversation sharing its sandbox; the sandbox and the others stay", async () => {
    const url = main.conversation_url?.replace(main.id, sub.id) ?? "";
    const key = main.session_api_key;
    expect((await agentRequest(url, key, "GET", "")).status).toBe(200);
    expect(await alice.caller.conversations.delete({ id: sub.id })).toEqual({
      success: true,
    });
    await expectAppError(alice.caller.conversations.get({ id: sub.id }), "CONVERSATION_NOT_FOUND");
    await expectAppError(alice.caller.events.search({ id: sub.id }), "CONVERSATION_NOT_FOUND");
    // The agent server forgot it too.
    expect((await agentRequest(url, key, "GET", "")).status).toBe(404);
    await alice.caller.conversations.delete({ id: second.id });
    expect((await alice.caller.sandboxes.get({ id: main.sandbox_id })).status).toBe("RUNNING");
    expect((await alice.caller.conversations.get({ id: main.id })).sandbox_status).toBe("RUNNING");
  });

  it("removes the sandbox its create started once it is the last conversation in it", async () => {
    await alice.caller.conversations.delete({ id: main.id });
    await expectAppError(alice.caller.conversations.get({ id: main.id }), "CONVERSATION_NOT_FOUND");
    await expectAppError(alice.caller.sandboxes.get({ id: main.sandbox_id }), "SANDBOX_NOT_FOUND");
    expect((await t.runtime.inspect(main.sandbox_id)).state).toBe("missing");
    // The start task stays, as the history of the create.
    const [task] = await alice.caller.conversations.getStartTasks({ ids: [MAIN_ID] });
    expect(task?.status).toBe("READY");
  });
});

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentRequest } from "../../test/agent";
import { command, waitForReply } from "../../test/conversation";
import { expectAppError, expectValidationError } from "../../test/expect-error";
import { createTestCore, type TestCore, type TestUser } from "../../test/harness";
import { pollUntil } from "../../test/wait";
import type { ConversationEvent } from "./contracts";

// One real agent server: alice's conversation with two commands run by the shell agent.
let t: TestCore;
let alice: TestUser;
let bob: TestUser;
let conversationId: string;
let sandboxId: string;
let all: ConversationEvent[];
const MISSING_ID = "00000000-0000-4000-8000-000000000000";

beforeAll(async () => {
  t = await createTestCore();
  alice = await t.createUser("alice");
  bob = await t.createUser("bob");
  const created = await alice.caller.conversations.create({
    initial_message: command("echo one"),
  });
  conversationId = created.id;
  sandboxId = created.sandbox_id;
  await waitForReply(alice.caller, conversationId, "one");
  await alice.caller.conversations.sendMessage({
    conversation_id: conversationId,
    ...command("echo two"),
  });
  await waitForReply(alice.caller, conversationId, "two");
  // The agent reports "finished" after its reply: wait for that, then for the stored copy.
  await pollUntil(
    () => alice.caller.conversations.get({ id: conversationId }),
    (conversation) => conversation.execution_status === "finished",
    "the agent did not finish",
  );
  const direct = await agentServerEvents();
  all = (
    await pollUntil(
      () => alice.caller.events.search({ id: conversationId }),
      (page) => page.items.length >= direct.length,
      "the control plane did not store every event",
    )
  ).items;
});

/** The conversation's events as its agent server answers them, asked directly. */
async function agentServerEvents(): Promise<ConversationEvent[]> {
  const sandbox = await alice.caller.sandboxes.get({ id: sandboxId });
  const answer = await agentRequest(
    sandbox.agent_server_url ?? "",
    sandbox.session_api_key,
    "GET",
    `/api/conversations/${conversationId}/events/search?limit=100`,
  );
  expect(answer.status).toBe(200);
  return (answer.body as { items: ConversationEvent[] }).items;
}

afterAll(async () => {
  await t?.close();
});

describe("events.search", () => {
  it("answers the conversation's events, oldest first, as the agent server has them", async () => {
    const directItems = await agentServerEvents();
    expect(all.map((event) => event.id)).toEqual(directItems.map((event) => event.id));
    expect(all).toEqual(directItems);
    const kinds = all.map((event) => event.kind);
    expect(kinds).toContain("ActionEvent");
    expect(kinds).toContain("ObservationEvent");
    const stamps = all.map((event) => event.timestamp);
    expect([...stamps].sort()).toEqual(stamps);
    const firstUserMessage = all.find((e) => e.kind === "MessageEvent" && e.source === "user");
    expect(JSON.stringify(firstUserMessage)).toContain("echo one");
  });

  it("filters by kind and sorts newest first on request", async () => {
    const observations = await alice.caller.events.search({
      id: conversationId,
      kind: "ObservationEvent",
    });
    expect(observations.items.map((event) => event.id)).toEqual(
      all.filter((event) => event.kind === "ObservationEvent").map((event) => event.id),
    );
    expect(observations.items).toHaveLength(2);
    const newestFirst = await alice.caller.events.search({
      id: conversationId,
      sort_order: "TIMESTAMP_DESC",
    });
    expect(newestFirst.items.map((event) => event.id)).toEqual(
      [...all].reverse().map((event) => event.id),
    );
    const none = await alice.caller.events.search({ id: conversationId, kind: "NoSuchEvent" });
    expect(none).toEqual({ items: [], next_page_id: null });
  });

  it("pages with an opaque cursor, every event exactly once", async () => {
    const seen: string[] = [];
    let pageId: string | undefined;
    for (let pages = 0; pages <= all.length; pages++) {
      const page = await alice.caller.events.search({
        id: conversationId,
        limit: 2,
        page_id: pageId,
      });
      seen.push(...page.items.map((event) => event.id));
      if (page.next_page_id === null) break;
      pageId = page.next_page_id;
    }
    expect(seen).toEqual(all.map((event) => event.id));
  });

  it("answers another user's conversation exactly like a missing one (404)", async () => {
    const foreign = await expectAppError(
      bob.caller.events.search({ id: conversationId }),
      "CONVERSATION_NOT_FOUND",
    );
    const missing = await expectAppError(
      bob.caller.events.search({ id: MISSING_ID }),
      "CONVERSATION_NOT_FOUND",
    );
    expect(foreign.message.replace(conversationId, "<id>")).toBe(
      missing.message.replace(MISSING_ID, "<id>"),
    );
  });

  it("validates its input", async () => {
    const search = alice.caller.events.search;
    await expectValidationError(search({ id: "not-a-uuid" }), ["id"]);
    await expectValidationError(search({ id: conversationId, limit: 0 }), ["limit"]);
    await expectValidationError(search({ id: conversationId, kind: "" }), ["kind"]);
    await expectValidationError(search({ id: conversationId, page_id: "garbage" }), ["page_id"]);
    await expectValidationError(
      // @ts-expect-error: not a sort order
      search({ id: conversationId, sort_order: "BACKWARDS" }),
      ["sort_order"],
    );
    await expectAppError(
      (await t.callerFor(null)).events.search({ id: conversationId }),
      "UNAUTHORIZED",
    );
  });
});

describe("events.searchByConversation and events.count (OpenHands' paths)", () => {
  const at = (index: number) => all[index]?.timestamp ?? "";

  it("answer the same stored events, filtered by kind and time, newest first on request", async () => {
    const search = alice.caller.events.searchByConversation;
    expect((await search({ conversation_id: conversationId })).items).toEqual(all);
    const observations = await search({
      conversation_id: conversationId,
      kind__eq: "ObservationEvent",
    });
    expect(observations.items.map((e) => e.id)).toEqual(
      all.filter((e) => e.kind === "ObservationEvent").map((e) => e.id),
    );
    const middle = Math.floor(all.length / 2);
    const from = await search({ conversation_id: conversationId, timestamp__gte: at(middle) });
    expect(from.items).toEqual(all.slice(middle));
    const before = await search({ conversation_id: conversationId, timestamp__lt: at(middle) });
    expect(before.items).toEqual(all.slice(0, middle));
    const desc = await search({ conversation_id: conversationId, sort_order: "TIMESTAMP_DESC" });
    expect(desc.items).toEqual([...all].reverse());
    // The same filters on the app-conversations path.
    const same = await alice.caller.events.search({
      id: conversationId,
      timestamp__gte: at(middle),
    });
    expect(same.items).toEqual(all.slice(middle));
  });

  it("page with an opaque cursor", async () => {
    const seen: string[] = [];
    let pageId: string | undefined;
    for (let pages = 0; pages <= all.length; pages++) {
      const page = await alice.caller.events.searchByConversation({
        conversation_id: conversationId,
        limit: 3,
        page_id: pageId,
      });
      seen.push(...page.items.map((event) => event.id));
      if (page.next_page_id === null) break;
      pageId = page.next_page_id;
    }
    expect(seen).toEqual(all.map((event) => event.id));
  });

  it("count answers how many events the filters match", async () => {
    const count = alice.caller.events.count;
    expect(await count({ conversation_id: conversationId })).toBe(all.length);
    expect(await count({ conversation_id: conversationId, kind__eq: "ActionEvent" })).toBe(
      all.filter((e) => e.kind === "ActionEvent").length,
    );
    expect(await count({ conversation_id: conversationId, timestamp__lt: at(1) })).toBe(1);
    expect(
      await count({ conversation_id: conversationId, timestamp__gte: "2999-01-01T00:00:00Z" }),
    ).toBe(0);
  });

  it("answer another user's conversation exactly like a missing one (404)", async () => {
    await expectAppError(
      bob.caller.events.searchByConversation({ conversation_id: conversationId }),
      "CONVERSATION_NOT_FOUND",
    );
    await expectAppError(
      bob.caller.events.count({ conversation_id: conversationId }),
      "CONVERSATION_NOT_FOUND",
    );
    await expectAppError(
      bob.caller.events.count({ conversation_id: MISSING_ID }),
      "CONVERSATION_NOT_FOUND",
    );
  });

  it("validate their input", async () => {
    const { searchByConversation, count } = alice.caller.events;
    await expectValidationError(searchByConversation({ conversation_id: "nope" }), [
      "conversation_id",
    ]);
    await expectValidationError(
      // @ts-expect-error: not an event kind
      searchByConversation({ conversation_id: conversationId, kind__eq: "Bogus" }),
      ["kind__eq"],
    );
    await expectValidationError(
      searchByConversation({ conversation_id: conversationId, timestamp__gte: "noon" }),
      ["timestamp__gte"],
    );
    await expectValidationError(
      searchByConversation({ conversation_id: conversationId, limit: 0 }),
      ["limit"],
    );
    await expectValidationError(count({ conversation_id: "nope" }), ["conversation_id"]);
    await expectValidationError(count({ conversation_id: conversationId, timestamp__lt: "x" }), [
      "timestamp__lt",
    ]);
    const anonymous = await t.callerFor(null);
    await expectAppError(
      anonymous.events.searchByConversation({ conversation_id: conversationId }),
      "UNAUTHORIZED",
    );
    await expectAppError(
      anonymous.events.count({ conversation_id: conversationId }),
      "UNAUTHORIZED",
    );
  });
});

describe("after the sandbox", () => {
  it("keeps answering while the sandbox is paused and after the conversation is archived", async () => {
    await alice.caller.sandboxes.pause({ id: sandboxId });
    expect((await alice.caller.events.search({ id: conversationId })).items).toEqual(all);
    await alice.caller.sandboxes.delete({ id: sandboxId });
    expect((await alice.caller.conversations.get({ id: conversationId })).archived).toBe(true);
    expect((await alice.caller.events.search({ id: conversationId })).items).toEqual(all);
  });
});

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { storeAdapters } from "../../test/stores";
import { InvalidPageIdError } from "../paging";
import type { ConversationEventRow, NewConversation, StartTaskRow } from "../port/rows";
import type { Store } from "../port/store";

let store: Store;

function conversation(id: string, createdAt: number, extra: Partial<NewConversation> = {}) {
  return {
    id,
    sandboxId: "sb_1",
    ownerId: "usr_a",
    title: null,
    agent: { kind: "shell" },
    metadata: {},
    archived: false,
    executionStatus: null,
    lastEventAt: null,
    createdAt,
    updatedAt: createdAt,
    ...extra,
  } satisfies NewConversation;
}

function task(id: string, createdAt: number, extra: Partial<StartTaskRow> = {}): StartTaskRow {
  return {
    id,
    ownerId: "usr_a",
    status: "WORKING",
    detail: null,
    appConversationId: null,
    sandboxId: null,
    agentServerUrl: null,
    request: {},
    replicaId: null,
    idempotencyRecordId: null,
    createdAt,
    updatedAt: createdAt,
    ...extra,
  };
}

function event(id: string, timestampUs: number, kind = "MessageEvent"): ConversationEventRow {
  return {
    id,
    conversationId: "c1",
    ownerId: "usr_a",
    timestamp: new Date(timestampUs / 1000).toISOString(),
    timestampUs,
    kind,
    source: "agent",
    body: { id },
    receivedAt: 1,
  };
}

const ids = (page: { items: { id: string }[] }) => page.items.map((row) => row.id);

/** The same contract for every adapter of the store port. */
describe.each(storeAdapters())("$name store", (adapter) => {
  beforeEach(async () => {
    store = (await adapter.open()).store;
    await store.users.insert({ id: "usr_a", name: "a", isAdmin: false, createdAt: 1 });
    await store.users.insert({ id: "usr_b", name: "b", isAdmin: false, createdAt: 1 });
  });
  afterEach(() => adapter.cleanup());

  describe("conversations: OpenHands fields, filters, title order, count", () => {
    it("fills absent OpenHands fields on insert and keeps given ones", async () => {
      const plain = await store.conversations.insert(conversation("c1", 100));
      expect(plain).toMatchObject({ parentConversationId: null, public: null, prNumber: [] });
      expect(await store.conversations.get("c1")).toEqual(plain);
      await store.conversations.insert(
        conversation("c2", 101, { selectedRepository: "o/r", prNumber: [7], public: true }),
      );
      expect(await store.conversations.get("c2")).toMatchObject({
        selectedRepository: "o/r",
        prNumber: [7],
        public: true,
      });
    });

    it("filters by time bounds (from inclusive, before exclusive) and leaves out sub-conversations", async () => {
      await store.conversations.insert(conversation("c1", 100));
      await store.conversations.insert(conversation("c2", 200, { updatedAt: 250 }));
      await store.conversations.insert(conversation("c3", 300, { parentConversationId: "c1" }));
      const search = (filter: object) =>
        store.conversations.search({ ownerId: "usr_a", ...filter }, "created", "asc", {
          limit: 10,
        });
      expect(ids(await search({ createdFrom: 200 }))).toEqual(["c2", "c3"]);
      expect(ids(await search({ createdBefore: 200 }))).toEqual(["c1"]);
      expect(ids(await search({ updatedFrom: 250, updatedBefore: 251 }))).toEqual(["c2"]);
      expect(ids(await search({ includeSubConversations: false }))).toEqual(["c1", "c2"]);
      expect(await store.conversations.count({ ownerId: "usr_a" })).toBe(3);
      expect(await store.conversations.count({ ownerId: "usr_a", createdFrom: 150 })).toBe(2);
      expect(await store.conversations.count({ ownerId: "usr_b" })).toBe(0);
    });

    it("sorts by title (none first) with a keyset over text, and refuses a cursor of another order", async () => {
      await store.conversations.insert(conversation("c1", 100, { title: "beta" }));
      await store.conversations.insert(conversation("c2", 101, { title: "alpha" }));
      await store.conversations.insert(conversation("c3", 102));
      await store.conversations.insert(conversation("c4", 103, { title: "alpha" }));
      const first = await store.conversations.search({ ownerId: "usr_a" }, "title", "asc", {
        limit: 2,
      });
      expect(ids(first)).toEqual(["c3", "c2"]);
      const second = await store.conversations.search({ ownerId: "usr_a" }, "title", "asc", {
        limit: 2,
        pageId: first.nextPageId ?? undefined,
      });
      expect(ids(second)).toEqual(["c4", "c1"]);
      const desc = await store.conversations.search({ ownerId: "usr_a" }, "title", "desc", {
        limit: 10,
      });
      expect(ids(desc)).toEqual(["c1", "c4", "c2", "c3"]);
      await expect(
        store.conversations.search({ ownerId: "usr_a" }, "created", "asc", {
          limit: 2,
          pageId: first.nextPageId ?? undefined,
        }),
      ).rejects.toBeInstanceOf(InvalidPageIdError);
    });
  });

  describe("start tasks", () => {
    it("stores, moves and pages a user's tasks", async () => {
      await store.startTasks.insert(task("t1", 100));
      await store.startTasks.insert(task("t2", 200));
      await store.startTasks.insert(task("t3", 300, { ownerId: "usr_b" }));
      const moved = await store.startTasks.update("t1", {
        status: "READY",
        appConversationId: "t1",
        updatedAt: 400,
      });
      expect(moved).toMatchObject({ status: "READY", appConversationId: "t1", createdAt: 100 });
      expect(await store.startTasks.update("nope", { status: "ERROR", updatedAt: 1 })).toBe(
        undefined,
      );
      const newest = await store.startTasks.search({ ownerId: "usr_a" }, "created", "desc", {
        limit: 1,
      });
      expect(ids(newest)).toEqual(["t2"]);
      const rest = await store.startTasks.search({ ownerId: "usr_a" }, "created", "desc", {
        limit: 1,
        pageId: newest.nextPageId ?? undefined,
      });
      expect(ids(rest)).toEqual(["t1"]);
      expect(rest.nextPageId).toBeNull();
      const updated = await store.startTasks.search({ ownerId: "usr_a" }, "updated", "desc", {
        limit: 5,
      });
      expect(ids(updated)).toEqual(["t1", "t2"]);
      const filter = { ownerId: "usr_a", createdFrom: 150 };
      expect(ids(await store.startTasks.search(filter, "created", "asc", { limit: 5 }))).toEqual([
        "t2",
      ]);
      expect(await store.startTasks.count({ ownerId: "usr_a", conversationId: "t1" })).toBe(1);
      expect(await store.startTasks.count({ ownerId: "usr_a" })).toBe(2);
    });

    it("moves a task by patches of several shapes, each setting only what it gives", async () => {
      await store.startTasks.insert(task("t1", 100, { request: { title: "kept" } }));
      await store.startTasks.update("t1", {
        status: "WAITING_FOR_SANDBOX",
        sandboxId: "sb_1",
        updatedAt: 110,
      });
      await store.startTasks.update("t1", {
        status: "STARTING_CONVERSATION",
        agentServerUrl: "http://127.0.0.1:1",
        updatedAt: 120,
      });
      // An undefined field is left out; a null one is written.
      const failed = await store.startTasks.update("t1", {
        status: "ERROR",
        detail: "it failed",
        sandboxId: undefined,
        updatedAt: 130,
      });
      expect(failed).toEqual({
        ...task("t1", 100, { request: { title: "kept" } }),
        status: "ERROR",
        detail: "it failed",
        sandboxId: "sb_1",
        agentServerUrl: "http://127.0.0.1:1",
        updatedAt: 130,
      });
      const cleared = await store.startTasks.update("t1", { detail: null, updatedAt: 140 });
      expect(cleared).toMatchObject({ status: "ERROR", detail: null, sandboxId: "sb_1" });
      expect(await store.startTasks.get("t1")).toEqual(cleared);
    });

    it("lists every owner's tasks in some statuses, with their replica and idempotency record", async () => {
      await store.startTasks.insert(task("t1", 100, { replicaId: "rpl_a" }));
      await store.startTasks.insert(
        task("t2", 200, { ownerId: "usr_b", status: "STARTING_CONVERSATION" }),
      );
      await store.startTasks.insert(task("t3", 300, { status: "READY" }));
      await store.startTasks.update("t2", { idempotencyRecordId: "idk_1", updatedAt: 400 });
      const open = await store.startTasks.listByStatus(["WORKING", "STARTING_CONVERSATION"]);
      expect(open.map((t) => [t.id, t.replicaId, t.idempotencyRecordId]).sort()).toEqual([
        ["t1", "rpl_a", null],
        ["t2", null, "idk_1"],
      ]);
      expect(await store.startTasks.listByStatus([])).toEqual([]);
    });
  });

  describe("conversation events: time bounds, count, removal", () => {
    it("filters by [from, before), counts, and drops a conversation's events", async () => {
      for (const [id, us, kind] of [
        ["e1", 1_000, "MessageEvent"],
        ["e2", 2_000, "ActionEvent"],
        ["e3", 3_000, "MessageEvent"],
      ] as const) {
        await store.conversationEvents.insertIfNew(event(id, us, kind));
      }
      const page = await store.conversationEvents.search(
        { conversationId: "c1", fromUs: 2_000, beforeUs: 3_000 },
        "asc",
        { limit: 10 },
      );
      expect(ids(page)).toEqual(["e2"]);
      expect(await store.conversationEvents.count({ conversationId: "c1" })).toBe(3);
      expect(
        await store.conversationEvents.count({ conversationId: "c1", kind: "MessageEvent" }),
      ).toBe(2);
      await store.conversationEvents.removeByConversation("c1");
      expect(await store.conversationEvents.count({ conversationId: "c1" })).toBe(0);
    });
  });
});

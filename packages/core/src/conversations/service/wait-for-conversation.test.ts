import type { ConversationEventRow } from "@sandbox-server/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { command, waitForReply } from "../../../test/conversation";
import { createTestCore, type TestCore, type TestUser } from "../../../test/harness";
import { waitForConversation } from "./wait-for-conversation";

let t: TestCore;
let alice: TestUser;

beforeAll(async () => {
  t = await createTestCore();
  alice = await t.createUser("alice");
});

afterAll(async () => {
  await t?.close();
});

describe("waitForConversation", () => {
  it("answers a reached state only once the events leading to it are stored here", async () => {
    const conversation = await alice.caller.conversations.create({
      initial_message: command("echo read-your-writes"),
    });
    await waitForReply(alice.caller, conversation.id, "read-your-writes");
    const events = t.deps.repos.conversationEvents;
    const stored = await events.search({ conversationId: conversation.id }, "asc", { limit: 100 });
    expect(stored.items.length).toBeGreaterThan(0);

    // As if the follower were a moment behind the agent server: the agent has settled, but the
    // control plane holds none of its events yet.
    await events.removeByConversation(conversation.id);
    let checked: () => void = () => {};
    const firstCheck = new Promise<void>((resolve) => {
      checked = resolve;
    });
    const search = events.search.bind(events);
    events.search = (...args) => {
      checked();
      return search(...args);
    };
    let answered = false;
    const wait = waitForConversation(t.deps, alice.id, conversation.id, "settled", 30_000).then(
      (value) => {
        answered = true;
        return value;
      },
    );
    try {
      await Promise.race([firstCheck, wait]);
      await new Promise((resolve) => setImmediate(resolve));
      expect(answered).toBe(false);

      // The follower catches up: the wait answers, and what it waited for is readable.
      for (const row of stored.items as ConversationEventRow[]) await events.insertIfNew(row);
      t.deps.events.emit("conversation.activity", conversation.id);
      const settled = await wait;
      expect(settled.execution_status).toBe("finished");
    } finally {
      events.search = search;
    }
  });
});

import { expect, inject, it } from "vitest";
import { followConversationEvents } from "./follow-events";
import { createSandboxClient } from "./trpc-client";
import type { ConversationEvent } from "./types";

const { url, apiKey } = inject("server");
const client = createSandboxClient({ url, apiKey });

async function storedEvents(id: string): Promise<ConversationEvent[]> {
  const events: ConversationEvent[] = [];
  for await (const event of followConversationEvents(client, id, { once: true })) {
    events.push(event);
  }
  return events;
}

it("yields stored events, then new ones as they arrive, until aborted", async () => {
  const conversation = await client.conversations.create.mutate({});
  const controller = new AbortController();
  const seen: ConversationEvent[] = [];
  const following = (async () => {
    for await (const event of followConversationEvents(client, conversation.id, {
      signal: controller.signal,
      intervalMs: 100,
    })) {
      seen.push(event);
    }
  })();

  await client.conversations.sendMessage.mutate({
    conversation_id: conversation.id,
    content: [{ type: "text", text: "echo followed-$((20 + 22))" }],
    run: true,
  });
  await expect
    .poll(() => JSON.stringify(seen.filter((event) => event.source === "agent")), {
      timeout: 30_000,
    })
    .toContain("followed-42");
  controller.abort();
  await following; // ends without an error

  const ids = seen.map((event) => event.id);
  expect(new Set(ids).size).toBe(ids.length);
  expect(ids).toEqual(
    (await storedEvents(conversation.id)).map((event) => event.id).slice(0, ids.length),
  );
  await client.sandboxes.delete.mutate({ id: conversation.sandbox_id });
});

it("pages through more events than one page holds, each once and in order", async () => {
  const conversation = await client.conversations.create.mutate({});
  // Each message leaves several events (message, action, observation, reply, status updates).
  for (let i = 0; i < 30; i++) {
    await client.conversations.sendMessage.mutate({
      conversation_id: conversation.id,
      content: [{ type: "text", text: `echo message-${i}` }],
      run: true,
    });
  }
  await expect
    .poll(async () => JSON.stringify(await storedEvents(conversation.id)), { timeout: 60_000 })
    .toContain("message-29\\n");
  const events = await storedEvents(conversation.id);
  expect(events.length).toBeGreaterThan(100);
  const ids = events.map((event) => event.id);
  expect(new Set(ids).size).toBe(ids.length);
  const timestamps = events.map((event) => event.timestamp);
  expect([...timestamps].sort()).toEqual(timestamps);
  await client.sandboxes.delete.mutate({ id: conversation.sandbox_id });
});

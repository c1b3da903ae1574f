import type { ConversationRow } from "@sandbox-server/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestCore, type TestCore } from "../../../test/harness";
import type { IncomingEvent } from "../contracts";
import { type EventToRecord, recordEvents } from "./record-event";

let t: TestCore;

beforeAll(async () => {
  t = await createTestCore();
  await t.store.users.insert({ id: "usr_rec", name: "rec", isAdmin: false, createdAt: 1 });
  await t.store.webhooks.insert({
    id: "wh_all",
    ownerId: "usr_rec",
    url: "http://127.0.0.1:1/hook",
    events: null,
    conversationId: null,
    secret: "s",
    createdAt: 1,
  });
  await t.store.webhooks.insert({
    id: "wh_state",
    ownerId: "usr_rec",
    url: "http://127.0.0.1:1/hook",
    events: ["ConversationStateUpdateEvent"],
    conversationId: null,
    secret: "s",
    createdAt: 2,
  });
});
afterAll(() => t.close());

async function conversation(id: string): Promise<ConversationRow> {
  return t.store.conversations.insert({
    id,
    sandboxId: "sb_rec",
    ownerId: "usr_rec",
    title: null,
    agent: {},
    metadata: {},
    archived: false,
    executionStatus: null,
    lastEventAt: null,
    createdAt: 1_000,
    updatedAt: 1_000,
  });
}

const at = (ms: number) => new Date(ms).toISOString();
const message = (id: string, ms: number, text: string): IncomingEvent => ({
  id,
  timestamp: at(ms),
  kind: "MessageEvent",
  source: "user",
  llm_message: { role: "user", content: [{ type: "text", text }] },
});
const status = (id: string, ms: number, value: string): IncomingEvent => ({
  id,
  timestamp: at(ms),
  kind: "ConversationStateUpdateEvent",
  source: "environment",
  key: "execution_status",
  value,
});

/** A conversation's events as a batch would see them: a resend, statuses, two titles, an old one. */
function eventsOf(prefix: string): IncomingEvent[] {
  return [
    message(`${prefix}1`, 5_000, "first title"),
    status(`${prefix}2`, 6_000, "running"),
    message(`${prefix}1`, 5_000, "first title"),
    message(`${prefix}3`, 7_000, "second title"),
    status(`${prefix}4`, 9_000, "finished"),
    status(`${prefix}5`, 8_000, "not-a-status"),
  ];
}

const toRecord = (conv: ConversationRow, event: IncomingEvent): EventToRecord => ({
  conversation: conv,
  event,
  timestampUs: Date.parse(event.timestamp) * 1000,
});

describe("recordEvents", () => {
  it("leaves a batch's conversation, events and outbox as storing them one at a time does", async () => {
    const single = await conversation("conv_single");
    const batched = await conversation("conv_batched");
    const one: boolean[] = [];
    for (const event of eventsOf("s")) {
      one.push(...(await recordEvents(t.deps, [toRecord(single, event)])));
    }
    const many = await recordEvents(
      t.deps,
      eventsOf("b").map((event) => toRecord(batched, event)),
    );
    expect(one).toEqual([true, true, false, true, true, true]);
    expect(many).toEqual(one);

    const a = await t.store.conversations.get("conv_single");
    const b = await t.store.conversations.get("conv_batched");
    const record = (row?: ConversationRow) => ({
      title: row?.title,
      executionStatus: row?.executionStatus,
      updatedAt: row?.updatedAt,
      lastEventAt: row?.lastEventAt,
    });
    expect(record(a)).toEqual({
      title: "first title",
      executionStatus: "finished",
      updatedAt: 9_000,
      lastEventAt: 9_000,
    });
    expect(record(b)).toEqual(record(a));

    const stored = async (id: string) =>
      (
        await t.store.conversationEvents.search({ conversationId: id }, "asc", { limit: 20 })
      ).items.map((e) => e.id.slice(1));
    expect(await stored("conv_batched")).toEqual(await stored("conv_single"));

    const outbox = async (hook: string, conv: string) =>
      (await t.store.webhookDeliveries.search({ webhookId: hook }, { limit: 50 })).items
        .filter((d) => d.stream === `conversation:${conv}`)
        .map((d) => d.eventId.slice(1))
        .reverse();
    for (const hook of ["wh_all", "wh_state"]) {
      expect(await outbox(hook, "conv_batched")).toEqual(await outbox(hook, "conv_single"));
    }
    expect(await outbox("wh_all", "conv_batched")).toEqual(["1", "2", "3", "4", "5"]);
    expect(await outbox("wh_state", "conv_batched")).toEqual(["2", "4", "5"]);
  });

  it("changes nothing when the whole batch was stored before", async () => {
    const conv = await conversation("conv_resent");
    const batch = eventsOf("r").map((event) => toRecord(conv, event));
    await recordEvents(t.deps, batch);
    const before = await t.store.conversations.get("conv_resent");
    const queued = await t.store.webhookDeliveries.countPending();
    expect(await recordEvents(t.deps, batch)).toEqual([false, false, false, false, false, false]);
    expect(await t.store.conversations.get("conv_resent")).toEqual(before);
    expect(await t.store.webhookDeliveries.countPending()).toBe(queued);
  });
});

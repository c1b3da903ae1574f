import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { silentLogger } from "../logger";
import {
  Conversation,
  type ConversationMeta,
  EVENT_META_SAVE_DELAY_MS,
  type EventDraft,
  META_FILE,
  writeMeta,
} from "./conversation";
import { EventLogFiles } from "./event-log";

const dirs: string[] = [];
afterEach(() => {
  vi.useRealTimers();
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function stored(): { conversation: Conversation; read: () => ConversationMeta } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "conversation-meta-"));
  dirs.push(dir);
  const now = new Date().toISOString();
  const meta: ConversationMeta = {
    info: {
      id: "0b9c5c1e-8d1e-4d4e-9a51-5f0e7f5c2a10",
      agent: { kind: "shell" },
      workspace: { working_dir: dir },
      execution_status: "idle",
      title: null,
      tags: {},
      created_at: now,
      updated_at: now,
      max_iterations: 500,
      stats: { usage_to_metrics: {} },
    },
    cursor: 0,
  };
  writeMeta(dir, meta);
  return {
    conversation: new Conversation(dir, meta, new EventLogFiles(), silentLogger),
    read: () => JSON.parse(fs.readFileSync(path.join(dir, META_FILE), "utf8")),
  };
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe("a conversation's meta.json", () => {
  it("has a status change by the event loop's next turn, and a cursor move at once", async () => {
    const { conversation, read } = stored();
    conversation.setStatus("running");
    await nextTurn();
    expect(read().info.execution_status).toBe("running");

    conversation.setStatus("finished");
    conversation.advanceCursor(1);
    // The cursor is written before the agent acts on it, with every change made before it.
    expect(read()).toMatchObject({ cursor: 1, info: { execution_status: "finished" } });
  });

  it("has a change still waiting for the turn's end once flushed", () => {
    const { conversation, read } = stored();
    conversation.setStatus("paused");
    conversation.flush();
    expect(read().info.execution_status).toBe("paused");
  });
});

describe("meta.json after events", () => {
  const message: EventDraft = {
    kind: "MessageEvent",
    source: "user",
    llm_message: { role: "user", content: [{ type: "text", text: "hi" }] },
    activated_skills: [],
    extended_content: [],
  };

  it("has the last event's updated_at once the save delay has passed, written once", () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const { conversation, read } = stored();
    const before = read().info.updated_at;
    conversation.append(message);
    const last = conversation.append(message);
    vi.advanceTimersByTime(EVENT_META_SAVE_DELAY_MS - 1);
    expect(read().info.updated_at).toBe(before);
    vi.advanceTimersByTime(1);
    expect(read().info.updated_at).toBe(last.timestamp);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("leaves events after a cursor save to their delay, not to the end of the turn", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const { conversation, read } = stored();
    // A run's start: the status, then the cursor (saved at once), then the agent's first event.
    conversation.setStatus("running");
    conversation.advanceCursor(1);
    const saved = read().info.updated_at;
    const action = conversation.append(message);
    await nextTurn();
    expect(read()).toMatchObject({ cursor: 1, info: { updated_at: saved } });
    vi.advanceTimersByTime(EVENT_META_SAVE_DELAY_MS);
    expect(read().info.updated_at).toBe(action.timestamp);
  });

  it("has it at once when flushed, and no timer is left", () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const { conversation, read } = stored();
    const last = conversation.append(message);
    conversation.flush();
    expect(read().info.updated_at).toBe(last.timestamp);
    expect(vi.getTimerCount()).toBe(0);
  });
});

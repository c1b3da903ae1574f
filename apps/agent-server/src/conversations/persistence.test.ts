import fs from "node:fs";
import path from "node:path";
import type { ConversationInfo, EventPage } from "@sandbox-server/agent-contracts";
import { afterEach, describe, expect, it } from "vitest";
import {
  createConversation,
  listEvents,
  sendText,
  startTestServer,
  type TestServer,
  waitFor,
} from "../../test/harness";

let server: TestServer;
afterEach(() => server.dispose());

/** The files this process holds open, as their paths (a removed file ends in " (deleted)"). */
const openFiles = () =>
  fs.readdirSync("/proc/self/fd").flatMap((fd) => {
    try {
      return [fs.readlinkSync(`/proc/self/fd/${fd}`)];
    } catch {
      return [];
    }
  });

const texts = (events: { kind: string; llm_message?: unknown }[]) =>
  events.flatMap((event) =>
    event.kind === "MessageEvent"
      ? [(event.llm_message as { content: { text: string }[] }).content[0]?.text]
      : [],
  );

const eventsOf = async (id: string) =>
  (await server.api<EventPage>("GET", `/api/conversations/${id}/events/search`)).body.items;

describe("persistence across a restart", () => {
  it("keeps conversations and events; a running conversation comes back as error", async () => {
    server = await startTestServer();
    const create = async (tag: string) =>
      (
        await server.api<ConversationInfo>("POST", "/api/conversations", {
          agent: { kind: "shell" },
          tags: { tag },
        })
      ).body;
    const idle = await create("idle");
    const running = await create("running");
    await server.api("POST", `/api/conversations/${idle.id}/events`, {
      content: [{ type: "text", text: "kept" }],
    });
    await server.api("PATCH", `/api/conversations/${idle.id}`, { title: "Kept title" });
    await server.api("POST", `/api/conversations/${running.id}/events`, {
      content: [{ type: "text", text: "sleep 60" }],
      run: true,
    });
    await waitFor(async () =>
      (await eventsOf(running.id)).some((event) => event.kind === "ActionEvent") ? true : undefined,
    );
    const idleEvents = await eventsOf(idle.id);
    const runningEvents = await eventsOf(running.id);

    server = await server.restart();
    // Stored conversations are loaded at start (interrupted runs are marked then), not on first use.
    expect(server.server.apiLoaded).toBe(true);

    const idleAfter = await server.api<ConversationInfo>("GET", `/api/conversations/${idle.id}`);
    expect(idleAfter.body).toMatchObject({
      title: "Kept title",
      tags: { tag: "idle" },
      execution_status: "idle",
    });
    expect(await eventsOf(idle.id)).toEqual(idleEvents);

    const runningAfter = await server.api<ConversationInfo>(
      "GET",
      `/api/conversations/${running.id}`,
    );
    expect(runningAfter.body.execution_status).toBe("error");
    const after = await eventsOf(running.id);
    expect(after.slice(0, runningEvents.length)).toEqual(runningEvents);
    expect(after.slice(-2)).toMatchObject([
      { kind: "ConversationErrorEvent", code: "AgentServerRestarted" },
      { kind: "ConversationStateUpdateEvent", key: "execution_status", value: "error" },
    ]);
    const timestamps = after.map((event) => event.timestamp);
    expect([...timestamps].sort()).toEqual(timestamps);
    expect(new Set(timestamps).size).toBe(timestamps.length);
    expect((await server.api("GET", "/api/conversations/count")).body).toBe(2);
  });

  it("survives a torn last line in events.jsonl", async () => {
    server = await startTestServer();
    const { id } = (
      await server.api<ConversationInfo>("POST", "/api/conversations", { agent: { kind: "shell" } })
    ).body;
    await server.api("POST", `/api/conversations/${id}/events`, {
      content: [{ type: "text", text: "whole" }],
    });
    await server.close();
    const log = path.join(server.dataDir, "conversations", id, "events.jsonl");
    fs.appendFileSync(log, '{"id":"torn","kind":"Mess');

    server = await server.restart();
    await server.api("POST", `/api/conversations/${id}/events`, {
      content: [{ type: "text", text: "next" }],
    });
    const events = await eventsOf(id);
    expect(events).toHaveLength(2);
    expect(fs.readFileSync(log, "utf8").split("\n").filter(Boolean)).toHaveLength(2);
  });
});

describe("the event log and meta.json on disk", () => {
  it("has every event appended before and after restarts, in order, once each", async () => {
    server = await startTestServer();
    const { id } = await createConversation(server);
    const sent: string[] = [];
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 4; i++) {
        sent.push(`m${round}-${i}`);
        expect((await sendText(server, id, `m${round}-${i}`, false)).status).toBe(200);
      }
      server = await server.restart();
    }
    expect(texts(await listEvents(server, id))).toEqual(sent);
    const log = path.join(server.dataDir, "conversations", id, "events.jsonl");
    const lines = fs.readFileSync(log, "utf8").split("\n");
    expect(lines.at(-1)).toBe("");
    expect(texts(lines.filter(Boolean).map((line) => JSON.parse(line)))).toEqual(sent);
  });

  it("has the last event's updated_at in meta.json after a shutdown, and after the restart", async () => {
    server = await startTestServer();
    const { id, updated_at: created } = await createConversation(server);
    await sendText(server, id, "one", false);
    await sendText(server, id, "two", false);
    const last = (await listEvents(server, id)).at(-1);
    expect(last?.timestamp).not.toBe(created);
    await server.close();
    const meta = JSON.parse(
      fs.readFileSync(path.join(server.dataDir, "conversations", id, "meta.json"), "utf8"),
    );
    expect(meta.info.updated_at).toBe(last?.timestamp);

    server = await server.restart();
    const info = await server.api<ConversationInfo>("GET", `/api/conversations/${id}`);
    expect(info.body.updated_at).toBe(last?.timestamp);
  });

  it("takes meta.json.tmp when a crash came between removing meta.json and renaming it", async () => {
    server = await startTestServer();
    const [kept, interrupted] = [
      await createConversation(server),
      await createConversation(server),
    ];
    await server.api("PATCH", `/api/conversations/${interrupted.id}`, { title: "Renamed" });
    await server.close();
    const dir = path.join(server.dataDir, "conversations", interrupted.id);
    fs.renameSync(path.join(dir, "meta.json"), path.join(dir, "meta.json.tmp"));

    server = await server.restart();
    const ids = (
      await server.api<{ items: ConversationInfo[] }>("GET", "/api/conversations/search")
    ).body.items.map((info) => info.id);
    expect(ids.sort()).toEqual([kept.id, interrupted.id].sort());
    const info = await server.api<ConversationInfo>("GET", `/api/conversations/${interrupted.id}`);
    expect(info.body.title).toBe("Renamed");
    expect(fs.readdirSync(dir).sort()).toEqual(["events.jsonl", "meta.json"]);
  });

  it("closes a conversation's event log when it is deleted, and every log on shutdown", async () => {
    server = await startTestServer();
    const [kept, deleted] = [await createConversation(server), await createConversation(server)];
    await sendText(server, kept.id, "kept", false);
    await sendText(server, deleted.id, "deleted", false);
    const logOf = (id: string) => path.join(server.dataDir, "conversations", id, "events.jsonl");
    const isOpen = (id: string) => openFiles().some((file) => file.startsWith(logOf(id)));
    expect(isOpen(kept.id) && isOpen(deleted.id)).toBe(true);

    expect((await server.api("DELETE", `/api/conversations/${deleted.id}`)).status).toBe(200);
    expect(fs.existsSync(logOf(deleted.id))).toBe(false);
    expect(isOpen(deleted.id)).toBe(false);
    expect(isOpen(kept.id)).toBe(true);

    await server.close();
    expect(openFiles().filter((file) => file.startsWith(server.dataDir))).toEqual([]);
  });
});

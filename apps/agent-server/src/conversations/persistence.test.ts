import fs from "node:fs";
import path from "node:path";
import type { ConversationInfo, EventPage } from "@sandbox-server/agent-contracts";
import { afterEach, describe, expect, it } from "vitest";
import { startTestServer, type TestServer, waitFor } from "../../test/harness";

let server: TestServer;
afterEach(() => server.dispose());

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

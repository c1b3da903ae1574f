import { randomUUID } from "node:crypto";
import type { MessageEvent } from "@sandbox-server/agent-contracts";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  listEvents,
  SESSION_KEY,
  sendText,
  startWithConversation,
  type TestServer,
  waitForStatus,
} from "../../test/harness";
import { openSocket } from "../../test/socket-client";

let server: TestServer;
let id: string;
beforeEach(async () => {
  ({ server, id } = await startWithConversation());
});
afterEach(() => server.dispose());

const socketUrl = (query = "", conversationId = id) =>
  `${server.wsUrl}/sockets/events/${conversationId}?session_api_key=${SESSION_KEY}${query}`;
const say = (text: string) => sendText(server, id, text);
const storedEvents = () => listEvents(server, id);

describe("events WebSocket", () => {
  it("sends full_state first, then live events including status changes", async () => {
    const socket = await openSocket(socketUrl());
    const first = await socket.waitForFrame(() => true);
    expect(first).toMatchObject({
      kind: "ConversationStateUpdateEvent",
      key: "full_state",
      value: { id },
    });

    await server.api("POST", `/api/conversations/${id}/events`, {
      content: [{ type: "text", text: "echo live" }],
      run: true,
    });
    await socket.waitForFrame(
      (frame) => frame.key === "execution_status" && frame.value === "finished",
    );
    const kinds = socket.frames
      .slice(1)
      .map((frame) => (frame.kind === "ConversationStateUpdateEvent" ? frame.value : frame.kind));
    expect(kinds).toEqual([
      "MessageEvent",
      "running",
      "ActionEvent",
      "ObservationEvent",
      "MessageEvent",
      "finished",
    ]);
    expect(socket.frames.slice(1)).toEqual(await storedEvents());
    socket.ws.close();
  });

  it("resends all past events in order, or only those strictly after a timestamp", async () => {
    for (const text of ["a", "b", "c"]) await say(text);
    const stored = await storedEvents();

    const all = await openSocket(socketUrl("&resend_mode=all"));
    await all.waitForFrame((frame) => frame.id === stored[2]?.id);
    expect(all.frames.slice(1)).toEqual(stored);

    const legacy = await openSocket(socketUrl("&resend_all=true"));
    await legacy.waitForFrame((frame) => frame.id === stored[2]?.id);
    expect(legacy.frames.slice(1)).toEqual(stored);

    const since = await openSocket(
      socketUrl(`&resend_mode=since&after_timestamp=${stored[0]?.timestamp}`),
    );
    await since.waitForFrame((frame) => frame.id === stored[2]?.id);
    await say("d");
    await since.waitForFrame(() => since.frames.length === 4);
    expect(since.frames.slice(1)).toEqual((await storedEvents()).slice(1));
    for (const socket of [all, legacy, since]) socket.ws.close();
  });

  it("closes with 1008 on an unreadable after_timestamp", async () => {
    const socket = await openSocket(socketUrl("&resend_mode=since&after_timestamp=soon"));
    expect((await socket.closed).code).toBe(1008);
  });

  it("takes user messages and runs them; same stored message as over REST", async () => {
    const content = [{ type: "text", text: "echo same" }];
    await server.api("POST", `/api/conversations/${id}/events`, { content });
    const socket = await openSocket(socketUrl());
    socket.send({ role: "user", content });
    await waitForStatus(server, id, "finished");

    const messages = (await storedEvents()).filter(
      (event): event is MessageEvent => event.kind === "MessageEvent" && event.source === "user",
    );
    expect(messages).toHaveLength(2);
    const [viaRest, viaSocket] = messages.map(({ id: _id, timestamp: _ts, ...rest }) => rest);
    expect(viaSocket).toEqual(viaRest);
    socket.ws.close();
  });

  it("answers invalid frames with ServerErrorEvent and stays open", async () => {
    const socket = await openSocket(socketUrl());
    socket.send("{nope");
    socket.send({ role: "assistant", content: [{ type: "text", text: "x" }] });
    await socket.waitForFrame((frame) => frame.code === "VALIDATION_FAILED");
    const errors = socket.frames.filter((frame) => frame.kind === "ServerErrorEvent");
    expect(errors.map((frame) => frame.code)).toEqual(["INVALID_JSON", "VALIDATION_FAILED"]);
    socket.send({ content: [{ type: "text", text: "true" }] });
    await socket.waitForFrame((frame) => frame.kind === "MessageEvent");
    socket.ws.close();
  });

  it("authenticates by header or by first frame", async () => {
    const byHeader = await openSocket(`${server.wsUrl}/sockets/events/${id}`, {
      "X-Session-API-Key": SESSION_KEY,
    });
    await byHeader.waitForFrame((frame) => frame.key === "full_state");

    const byFrame = await openSocket(`${server.wsUrl}/sockets/events/${id}`);
    byFrame.send({ type: "auth", session_api_key: SESSION_KEY });
    await byFrame.waitForFrame((frame) => frame.key === "full_state");
    // Nothing came before the answer to the auth frame.
    expect(byFrame.frames[0]?.key).toBe("full_state");
    byHeader.ws.close();
    byFrame.ws.close();
  });

  it("closes with 4001 on a bad key in the query or the first frame", async () => {
    const badQuery = await openSocket(`${server.wsUrl}/sockets/events/${id}?session_api_key=wrong`);
    expect((await badQuery.closed).code).toBe(4001);
    const badFrame = await openSocket(`${server.wsUrl}/sockets/events/${id}`);
    badFrame.send({ type: "auth", session_api_key: "wrong" });
    expect((await badFrame.closed).code).toBe(4001);
    const notAuth = await openSocket(`${server.wsUrl}/sockets/events/${id}`);
    notAuth.send({ role: "user", content: [{ type: "text", text: "x" }] });
    expect((await notAuth.closed).code).toBe(4001);
    expect(badQuery.frames).toEqual([]);
  });

  it("closes with 4004 for an unknown conversation and when it is deleted", async () => {
    const unknown = await openSocket(socketUrl("", randomUUID()));
    expect((await unknown.closed).code).toBe(4004);
    const notAnId = await openSocket(socketUrl("", "nope"));
    expect((await notAnId.closed).code).toBe(4004);

    const socket = await openSocket(socketUrl());
    await socket.waitForFrame((frame) => frame.key === "full_state");
    await server.api("DELETE", `/api/conversations/${id}`);
    expect((await socket.closed).code).toBe(4004);
  });

  it("survives a protocol error on one socket", async () => {
    const socket = await openSocket(socketUrl());
    socket.ws.send(Buffer.from([0xff, 0xfe]), { binary: false });
    expect((await socket.closed).code).toBe(1007);
    expect((await server.api("GET", "/api/conversations/count")).body).toBe(1);
  });

  it("refuses other socket paths", async () => {
    await expect(openSocket(`${server.wsUrl}/sockets/other`)).rejects.toThrow(/404/);
  });
});

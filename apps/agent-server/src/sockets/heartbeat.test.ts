import { afterEach, expect, it } from "vitest";
import { WebSocket } from "ws";
import { SESSION_KEY, startWithConversation, type TestServer } from "../../test/harness";
import { openSocket } from "../../test/socket-client";

let server: TestServer | undefined;
afterEach(() => server?.dispose());

// Intervals generous enough that a loaded CI machine still answers pings in time.
it("drops a client that stops answering pings and keeps one that answers", async () => {
  const started = await startWithConversation({ socketHeartbeatMs: 300 });
  server = started.server;
  const url = `${server.wsUrl}/sockets/events/${started.id}?session_api_key=${SESSION_KEY}`;
  const answering = await openSocket(url);
  // ws answers pings by itself unless told not to: this one plays a peer that vanished.
  const silent = new WebSocket(url, { autoPong: false });
  const silentClosed = new Promise<number>((resolve) => silent.on("close", resolve));
  await new Promise((resolve) => silent.once("open", resolve));

  expect(await silentClosed).toBe(1006);
  // Pinged twice more after that: the server checked the first ping's pong before the second.
  await pings(answering.ws, 2);
  expect(answering.ws.readyState).toBe(WebSocket.OPEN);
  answering.ws.close();
});

/** Resolves once `ws` has received `count` pings from now on. */
function pings(ws: WebSocket, count: number): Promise<void> {
  return new Promise((resolve) => {
    let seen = 0;
    const onPing = () => {
      seen += 1;
      if (seen < count) return;
      ws.off("ping", onPing);
      resolve();
    };
    ws.on("ping", onPing);
  });
}

import type { Server } from "node:http";
import { type WebSocket, WebSocketServer } from "ws";
import type { AgentServerContext } from "../context";
import { SESSION_KEY_HEADER } from "../http/auth";
import { serveEventSocket } from "./events-socket";
import { readResendRequest } from "./resend";

const SOCKET_PATH = /^\/sockets\/events\/([^/]+)\/?$/;
const MAX_FRAME_BYTES = 25 * 1024 * 1024;
/** Default ping interval; a client that has not answered the previous ping is dropped. */
export const DEFAULT_HEARTBEAT_MS = 30_000;

/**
 * Routes WebSocket upgrades; returns a function that closes every socket (shutdown).
 * Every `heartbeatMs` each client is pinged, and one that did not answer the previous ping is
 * terminated: a client that vanished without a close (a dropped network, a frozen peer) would
 * otherwise be kept, and written to, forever.
 */
export function attachSockets(
  server: Server,
  ctx: AgentServerContext,
  heartbeatMs = DEFAULT_HEARTBEAT_MS,
): () => void {
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES });
  const alive = new WeakSet<WebSocket>();
  const heartbeat = setInterval(() => {
    for (const client of wss.clients) {
      if (!alive.has(client)) {
        client.terminate();
        continue;
      }
      alive.delete(client);
      client.ping();
    }
  }, heartbeatMs);
  heartbeat.unref();
  server.on("upgrade", (req, socket, head) => {
    socket.on("error", () => socket.destroy());
    const url = new URL(req.url ?? "/", "http://localhost");
    const match = SOCKET_PATH.exec(url.pathname);
    if (!match?.[1]) {
      socket.end("HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
      return;
    }
    // Not an id at all: it cannot name a conversation, which the socket reports as 4004.
    const conversationId = safeDecode(match[1]).toLowerCase();
    const header = req.headers[SESSION_KEY_HEADER];
    const sessionKey =
      url.searchParams.get("session_api_key") ?? (typeof header === "string" ? header : undefined);
    wss.handleUpgrade(req, socket, head, (ws) => {
      // Protocol errors (oversized or malformed frames) close the socket; they must not crash us.
      ws.on("error", () => ws.terminate());
      alive.add(ws);
      ws.on("pong", () => alive.add(ws));
      ctx.lastActivityAt = Date.now();
      serveEventSocket(ws, ctx, {
        conversationId,
        sessionKey,
        resend: readResendRequest(url.searchParams),
      });
    });
  });
  return () => {
    clearInterval(heartbeat);
    for (const client of wss.clients) client.close(1001, "Server shutting down");
    setTimeout(() => {
      for (const client of wss.clients) client.terminate();
    }, 1000).unref();
  };
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

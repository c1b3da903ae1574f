import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import type { WebSocket, WebSocketServer } from "ws";
import { type AgentServerContext, markActive } from "../context";
import { SESSION_KEY_HEADER } from "../http/auth";
import { serveEventSocket } from "./events-socket";
import { readResendRequest } from "./resend";

export const SOCKET_PATH = /^\/sockets\/events\/([^/]+)\/?$/;
const MAX_FRAME_BYTES = 25 * 1024 * 1024;
/** Default ping interval; a client that has not answered the previous ping is dropped. */
export const DEFAULT_HEARTBEAT_MS = 30_000;

export interface SocketServer {
  /** Takes over an upgrade request for `/sockets/events/{id}`. */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void>;
  /** Closes every socket (shutdown). */
  close(): void;
}

/**
 * The events WebSocket endpoint. `ws` is loaded on the first upgrade: most sandboxes are only
 * ever called over REST. Every `heartbeatMs` each client is pinged, and one that did not answer
 * the previous ping is terminated: a client that vanished without a close (a dropped network, a
 * frozen peer) would otherwise be kept, and written to, forever.
 */
export function createSocketServer(
  ctx: AgentServerContext,
  heartbeatMs = DEFAULT_HEARTBEAT_MS,
): SocketServer {
  let server: Promise<WebSocketServer> | undefined;
  let heartbeat: NodeJS.Timeout | undefined;
  let closed = false;
  const alive = new WeakSet<WebSocket>();

  const start = async (): Promise<WebSocketServer> => {
    const { WebSocketServer } = await import("ws");
    const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES });
    heartbeat = setInterval(() => {
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
    return wss;
  };

  return {
    async upgrade(req, socket, head) {
      socket.on("error", () => socket.destroy());
      const url = new URL(req.url ?? "/", "http://localhost");
      const match = SOCKET_PATH.exec(url.pathname);
      if (!match?.[1] || closed) {
        socket.end("HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
        return;
      }
      // Not an id at all: it cannot name a conversation, which the socket reports as 4004.
      const conversationId = safeDecode(match[1]).toLowerCase();
      const header = req.headers[SESSION_KEY_HEADER];
      const sessionKey =
        url.searchParams.get("session_api_key") ??
        (typeof header === "string" ? header : undefined);
      server ??= start();
      const wss = await server;
      if (closed) socket.destroy();
      if (socket.destroyed) return;
      // The 101 answer, the full state and the past events leave in one write, not one each
      // (handleUpgrade calls back synchronously).
      socket.cork();
      wss.handleUpgrade(req, socket, head, (ws) => {
        // Protocol errors (oversized or malformed frames) close the socket; they must not crash us.
        ws.on("error", () => ws.terminate());
        alive.add(ws);
        ws.on("pong", () => alive.add(ws));
        markActive(ctx.state);
        serveEventSocket(ws, ctx, {
          conversationId,
          sessionKey,
          resend: readResendRequest(url.searchParams),
        });
      });
      socket.uncork();
    },
    close() {
      closed = true;
      clearInterval(heartbeat);
      void server?.then((wss) => {
        for (const client of wss.clients) client.close(1001, "Server shutting down");
        setTimeout(() => {
          for (const client of wss.clients) client.terminate();
        }, 1000).unref();
      });
    },
  };
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

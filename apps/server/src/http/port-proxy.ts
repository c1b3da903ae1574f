import { type Server, STATUS_CODES } from "node:http";
import type { Socket } from "node:net";
import {
  type CoreDeps,
  type DescribedError,
  openPortForHost,
  parsePortHost,
  type SandboxStatusChange,
} from "@sandbox-server/core";
import type { SandboxRow } from "@sandbox-server/db";
import type { Logger } from "pino";
import { describeAndLog, errorBody } from "./error-response";

/** A first request head longer than this is not a port URL's: Node's parser answers it (431). */
const MAX_HEAD_BYTES = 16 * 1024;
/** Activity is recorded at most this often per connection (the lifetime sweep reads it per second). */
const ACTIVITY_EVERY_MS = 1_000;
const HEAD_END = Buffer.from("\r\n\r\n");

export interface PortProxy {
  /** Ends every proxied connection (a shutdown: they are not the HTTP server's to close). */
  close(): void;
}

/**
 * Serves port URLs on the HTTP server's own listener. Each connection's first request head is
 * read before Node's HTTP parser sees it: when its Host names a port URL (`p{port}-{id}-{token}.…`)
 * the token and the sandbox are checked, a tunnel to the port is opened through the sandbox's
 * agent server, and from then on raw bytes flow both ways (keep-alive requests, WebSocket
 * upgrades, streamed and large bodies alike). Any other connection goes to the HTTP server
 * unchanged. Refusals are the API's JSON errors, then the connection closes.
 */
export function servePortUrls(
  server: Server,
  deps: CoreDeps,
  log: Logger,
  headersTimeoutMs: number,
): PortProxy {
  const httpListeners = server.listeners("connection") as ((socket: Socket) => void)[];
  server.removeAllListeners("connection");
  const connections = new ProxiedConnections();
  const toHttp = (socket: Socket, head: Buffer) => {
    socket.pause();
    if (head.length > 0) socket.unshift(head);
    for (const listener of httpListeners) listener.call(server, socket);
    socket.resume();
  };
  // A connection is checked once, at its first request: it ends when its sandbox stops running.
  const onStatus = ({ sandbox }: SandboxStatusChange) => {
    if (sandbox.status !== "RUNNING") connections.end(sandbox.id);
  };
  const onDeleted = (sandbox: SandboxRow) => connections.end(sandbox.id);
  deps.events.on("sandbox.status_changed", onStatus);
  deps.events.on("sandbox.deleted", onDeleted);

  server.on("connection", (socket: Socket) => {
    let head: Buffer = Buffer.alloc(0);
    const decide = (host: string | undefined) => {
      socket.off("data", onData);
      socket.off("end", onEnd);
      socket.setTimeout(0);
      if (host === undefined || !parsePortHost(deps.portUrls, host)) toHttp(socket, head);
      else proxy(deps, log, connections, socket, host, head);
    };
    const onData = (chunk: Buffer) => {
      head = head.length === 0 ? chunk : Buffer.concat([head, chunk]);
      // Decided as soon as the Host line is complete (or the head ended without one).
      const end = head.indexOf(HEAD_END);
      const host = hostOf(end < 0 ? head : head.subarray(0, end + 2));
      if (host === undefined && end < 0 && head.length < MAX_HEAD_BYTES) return;
      decide(host);
    };
    // A connection that ends or stalls before a Host is the HTTP server's to answer (408 once
    // its own bound passes too).
    const onEnd = () => decide(undefined);
    socket.on("data", onData);
    socket.once("end", onEnd);
    socket.setTimeout(headersTimeoutMs, onEnd);
  });
  return {
    close() {
      deps.events.off("sandbox.status_changed", onStatus);
      deps.events.off("sandbox.deleted", onDeleted);
      connections.endAll();
    },
  };
}

/** The open proxied connections, by sandbox. */
class ProxiedConnections {
  private readonly bySandbox = new Map<string, Set<Socket>>();

  add(sandboxId: string, socket: Socket): void {
    let set = this.bySandbox.get(sandboxId);
    if (!set) {
      set = new Set();
      this.bySandbox.set(sandboxId, set);
    }
    set.add(socket);
    socket.once("close", () => {
      set.delete(socket);
      if (set.size === 0 && this.bySandbox.get(sandboxId) === set) this.bySandbox.delete(sandboxId);
    });
  }

  end(sandboxId: string): void {
    for (const socket of this.bySandbox.get(sandboxId) ?? []) socket.destroy();
  }

  endAll(): void {
    for (const id of [...this.bySandbox.keys()]) this.end(id);
  }
}

function proxy(
  deps: CoreDeps,
  log: Logger,
  connections: ProxiedConnections,
  socket: Socket,
  host: string,
  head: Buffer,
): void {
  socket.pause();
  socket.on("error", () => socket.destroy());
  openPortForHost(deps, host).then(
    (opened) => {
      // Checked as a port URL's host before: never null here.
      if (!opened) return socket.destroy();
      const { tunnel, sandboxId } = opened;
      if (socket.destroyed) {
        tunnel.destroy();
        return;
      }
      connections.add(sandboxId, socket);
      // The URL's expiry ends the connection too (a WebSocket opened just before it included).
      const expiry = setTimeout(() => socket.destroy(), opened.expiresAtMs - deps.now());
      expiry.unref();
      let recordedAt = deps.now();
      const record = () => {
        const now = deps.now();
        if (now - recordedAt < ACTIVITY_EVERY_MS) return;
        recordedAt = now;
        deps.activity.set(sandboxId, now);
      };
      tunnel.on("error", () => socket.destroy());
      tunnel.on("close", () => socket.destroy());
      socket.on("close", () => {
        clearTimeout(expiry);
        tunnel.destroy();
      });
      socket.setNoDelay(true);
      socket.setKeepAlive(true, 60_000);
      tunnel.on("data", record);
      socket.on("data", record);
      tunnel.write(head);
      socket.pipe(tunnel);
      tunnel.pipe(socket);
      socket.resume();
    },
    (error: unknown) => {
      // The host carries the token, a bearer secret: logged without it.
      const portUrl = host.replace(/^(p[0-9]+-[0-9a-z]+)-[0-9a-z]+\./, "$1-….");
      refuse(
        socket,
        describeAndLog(log, error, () => ({ portUrl })),
      );
    },
  );
}

/** The API's JSON error as a raw response; the connection then closes. */
function refuse(socket: Socket, error: DescribedError): void {
  if (socket.destroyed) return;
  const body = JSON.stringify(errorBody(error));
  socket.end(
    `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status]}\r\n` +
      "Content-Type: application/json; charset=utf-8\r\n" +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      `${error.retryAfterSeconds ? `Retry-After: ${error.retryAfterSeconds}\r\n` : ""}` +
      "Connection: close\r\n\r\n" +
      body,
  );
  // Whatever the client still sends (a body) is read and dropped, so it gets to read the answer.
  socket.resume();
}

/** The first request's Host header once its line is complete, lower-cased; else undefined. */
function hostOf(head: Buffer): string | undefined {
  const text = head.toString("latin1");
  const match = /\r\nhost:[ \t]*([^\r\n]*)\r\n/i.exec(text);
  return match?.[1]?.trim().toLowerCase();
}

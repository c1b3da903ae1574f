import { type Server, STATUS_CODES } from "node:http";
import type { Socket } from "node:net";
import {
  type CoreDeps,
  type DescribedError,
  openPortForHost,
  PortRoutes,
  parsePortHost,
  type SandboxStatusChange,
} from "@sandbox-server/core";
import type { SandboxRow } from "@sandbox-server/db";
import type { Logger } from "pino";
import { describeAndLog, errorBody } from "./error-response";
import { ProxiedConnections } from "./proxied-connections";

/** A first request head longer than this is not a port URL's: Node's parser answers it (431). */
const MAX_HEAD_BYTES = 16 * 1024;
const HEAD_END = Buffer.from("\r\n\r\n");

/** A proxied connection's first request: a plain one, or an upgrade (a WebSocket). */
export type PortConnectionKind = "request" | "upgrade";

export interface PortProxyOptions {
  /** How long a connection may take to send its first request's Host line. */
  headersTimeoutMs: number;
  /**
   * Each port URL connection, by its first request's kind and outcome: `direct` or `tunnel` (the
   * way the port was reached), else the refusal's error code in lower case.
   */
  observe?: (kind: PortConnectionKind, outcome: string) => void;
}

export interface PortProxy {
  /** Ends every proxied connection (a shutdown: they are not the HTTP server's to close). */
  close(): void;
}

interface ProxyContext {
  deps: CoreDeps;
  log: Logger;
  connections: ProxiedConnections;
  routes: PortRoutes;
  observe: (kind: PortConnectionKind, outcome: string) => void;
}

/**
 * Serves port URLs on the HTTP server's own listener. Each connection's first request head is
 * read before Node's HTTP parser sees it: when its Host names a port URL (`p{port}-{id}-{token}.…`)
 * the token and the sandbox are checked, the port is connected (straight to the sandbox's address,
 * or through its agent server's tunnel), and from then on raw bytes flow both ways (keep-alive
 * requests, WebSocket upgrades, streamed and large bodies alike). Any other connection goes to
 * the HTTP server unchanged. Refusals are the API's JSON errors, then the connection closes.
 */
export function servePortUrls(
  server: Server,
  deps: CoreDeps,
  log: Logger,
  options: PortProxyOptions,
): PortProxy {
  const httpListeners = server.listeners("connection") as ((socket: Socket) => void)[];
  server.removeAllListeners("connection");
  const ctx: ProxyContext = {
    deps,
    log,
    connections: new ProxiedConnections(deps),
    routes: new PortRoutes(deps.now),
    observe: options.observe ?? (() => undefined),
  };
  const toHttp = (socket: Socket, head: Buffer) => {
    socket.pause();
    if (head.length > 0) socket.unshift(head);
    for (const listener of httpListeners) listener.call(server, socket);
    socket.resume();
  };
  // A connection is checked once, at its first request: it ends when its sandbox stops running.
  // A sandbox whose status changes may come back elsewhere (a restarted container's address).
  const onStatus = ({ sandbox }: SandboxStatusChange) => {
    ctx.routes.forget(sandbox.id);
    if (sandbox.status !== "RUNNING") ctx.connections.end(sandbox.id);
  };
  const onDeleted = (sandbox: SandboxRow) => {
    ctx.routes.forget(sandbox.id);
    ctx.connections.end(sandbox.id);
  };
  deps.events.on("sandbox.status_changed", onStatus);
  deps.events.on("sandbox.deleted", onDeleted);

  server.on("connection", (socket: Socket) => {
    let head: Buffer = Buffer.alloc(0);
    const decide = (host: string | undefined) => {
      socket.off("data", onData);
      socket.off("end", onEnd);
      socket.setTimeout(0);
      if (host === undefined || !parsePortHost(deps.portUrls, host)) toHttp(socket, head);
      else proxy(ctx, socket, host, head, isUpgrade(head) ? "upgrade" : "request");
    };
    const onData = (chunk: Buffer) => {
      head = head.length === 0 ? chunk : Buffer.concat([head, chunk]);
      // Decided as soon as the Host line is complete (or the head ended without one).
      const end = head.indexOf(HEAD_END);
      const host = hostOf(end < 0 ? head : head.subarray(0, end + 2));
      const more = end < 0 && head.length < MAX_HEAD_BYTES;
      if (host === undefined && more) return;
      // A port URL's connection waits for its whole head: its kind (an upgrade?) is counted.
      if (more && parsePortHost(deps.portUrls, host)) return;
      decide(host);
    };
    // A connection that ends or stalls before a Host is the HTTP server's to answer (408 once
    // its own bound passes too).
    const onEnd = () => decide(undefined);
    socket.on("data", onData);
    socket.once("end", onEnd);
    socket.setTimeout(options.headersTimeoutMs, onEnd);
  });
  return {
    close() {
      deps.events.off("sandbox.status_changed", onStatus);
      deps.events.off("sandbox.deleted", onDeleted);
      ctx.connections.endAll();
    },
  };
}

function proxy(
  ctx: ProxyContext,
  socket: Socket,
  host: string,
  head: Buffer,
  kind: PortConnectionKind,
): void {
  const { deps, log, connections, routes } = ctx;
  socket.pause();
  socket.on("error", () => socket.destroy());
  openPortForHost(deps, host, routes).then(
    (opened) => {
      // Checked as a port URL's host before: never null here.
      if (!opened) return socket.destroy();
      const { socket: upstream, sandboxId } = opened;
      ctx.observe(kind, opened.path);
      if (socket.destroyed) {
        upstream.destroy();
        return;
      }
      connections.add(sandboxId, socket);
      // The URL's expiry ends the connection too (a WebSocket opened just before it included).
      const expiry = setTimeout(() => socket.destroy(), opened.expiresAtMs - deps.now());
      expiry.unref();
      upstream.on("error", () => socket.destroy());
      upstream.on("close", () => socket.destroy());
      socket.on("close", () => {
        clearTimeout(expiry);
        upstream.destroy();
      });
      socket.setNoDelay(true);
      socket.setKeepAlive(true, 60_000);
      // The head read so far first, then the kernel's bytes as they come, untouched both ways.
      upstream.write(head);
      socket.pipe(upstream);
      upstream.pipe(socket);
      socket.resume();
    },
    (error: unknown) => {
      // The host carries the token, a bearer secret: logged without it.
      const portUrl = host.replace(/^(p[0-9]+-[0-9a-z]+)-[0-9a-z]+\./, "$1-….");
      const described = describeAndLog(log, error, () => ({ portUrl }));
      ctx.observe(kind, described.code.toLowerCase());
      refuse(socket, described);
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

/** Whether the first request asks for an upgrade (a WebSocket). */
function isUpgrade(head: Buffer): boolean {
  const end = head.indexOf(HEAD_END);
  return /\r\nupgrade:/i.test(head.toString("latin1", 0, end < 0 ? head.length : end + 2));
}

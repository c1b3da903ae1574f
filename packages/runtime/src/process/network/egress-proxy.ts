import {
  createServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import { connect, type Socket } from "node:net";
import type { EgressDenial } from "@sandbox-server/egress";
import { errorMessage } from "../../error-message";
import type { RuntimeLogger } from "../../types";
import { decideProxyTarget, type ProxyContext } from "./proxy-decision";
import { destinationOf } from "./refused-destinations";

/** Connections a sandbox may have through the proxy at once; more are answered 503. */
const TUNNELS_PER_SANDBOX = 256;
/** How long an upstream connect may take before the client gets 502. */
const CONNECT_TIMEOUT_MS = 10_000;

/**
 * The proxy variables a sandbox gets: its HTTP(S) clients that honour them ask the proxy, and
 * are told why when a destination is refused (403 and the rule) rather than seeing a reset.
 */
export function proxyEnvOf(proxyUrl: string): Record<string, string> {
  const noProxy = "localhost,127.0.0.1,::1";
  return {
    HTTP_PROXY: proxyUrl,
    HTTPS_PROXY: proxyUrl,
    http_proxy: proxyUrl,
    https_proxy: proxyUrl,
    NO_PROXY: noProxy,
    no_proxy: noProxy,
  };
}

/**
 * The control plane's HTTP proxy for sandboxes: CONNECT (any TCP, HTTPS in practice) and
 * absolute-form requests (plain HTTP). Each request is judged by the sandbox's policy exactly as
 * its enforcer judges a connection (`decideProxyTarget`); a refusal is a `403` whose text names
 * the destination and the rule, and is reported like the enforcer's denials. An allowed request
 * is carried to the address that was judged (no second lookup: a name cannot rebind between the
 * check and the connect). The socket a request arrives on says which sandbox asks: a listener per
 * sandbox (`open`), or a shared one whose peer address names it (`serve`). Idle, it costs
 * nothing: no timers, only listening sockets.
 */
export class EgressProxy {
  private readonly servers = new Map<string, Server>();
  private readonly tunnels = new Map<string, number>();

  constructor(
    private readonly contextOf: (sandboxId: string) => ProxyContext | null,
    private readonly onDenied: (denial: EgressDenial) => void,
    private readonly logger: RuntimeLogger,
    /** The sandbox's resolver's lookups (its limits apply). */
    private readonly lookup: (sandboxId: string, name: string) => Promise<string[] | null>,
  ) {}

  /**
   * The sandbox's listener (kept from an earlier run): on the host's 127.0.0.1 by default, where
   * `port` re-binds an adopted one's; or on `host` (the host's end of its veth pair), answering
   * only connections from `peer` (the namespace's address: another program on the host or a
   * container reaching that address is not the sandbox).
   */
  async open(sandboxId: string, port = 0, host = "127.0.0.1", peer?: string): Promise<number> {
    const known = this.servers.get(sandboxId)?.address();
    if (typeof known === "object" && known) return known.port;
    const server = this.serve((socket) =>
      peer === undefined || socket.remoteAddress === peer ? sandboxId : null,
    );
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, host, () => {
        server.off("error", reject);
        resolve();
      });
    });
    server.unref();
    this.servers.set(sandboxId, server);
    const address = server.address();
    return typeof address === "object" && address ? address.port : port;
  }

  close(sandboxId: string): void {
    this.servers.get(sandboxId)?.close();
    this.servers.delete(sandboxId);
  }

  closeAll(): void {
    for (const id of [...this.servers.keys()]) this.close(id);
  }

  /** A server (not listening yet) whose requests belong to the sandbox `sandboxOf` names. */
  serve(sandboxOf: (socket: Socket) => string | null): Server {
    const server = createServer((req, res) => {
      void this.forward(sandboxOf(req.socket), req, res);
    });
    server.on("connect", (req: IncomingMessage, client: Socket, head: Buffer) => {
      void this.tunnel(sandboxOf(client), req, client, head);
    });
    server.on("clientError", (_error, socket) => socket.destroy());
    server.on("error", (error) => this.logger.warn({ err: error }, "egress proxy error"));
    return server;
  }

  /** CONNECT host:port → a tunnel to the judged address, or the refusal. */
  private async tunnel(
    sandboxId: string | null,
    req: IncomingMessage,
    client: Socket,
    head: Buffer,
  ): Promise<void> {
    client.on("error", () => undefined);
    const target = parseAuthority(req.url ?? "");
    if (target === null) return answerRaw(client, 400, "expected CONNECT host:port");
    const decided = await this.decide(sandboxId, target.host, target.port);
    if (!decided.ok) return answerRaw(client, decided.status, decided.text);
    const release = decided.release;
    const upstream = connect({ host: decided.address, port: target.port });
    const timer = setTimeout(
      () => upstream.destroy(new Error("connect timed out")),
      CONNECT_TIMEOUT_MS,
    );
    let established = false;
    upstream.once("connect", () => {
      established = true;
      clearTimeout(timer);
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.once("error", (error) => {
      clearTimeout(timer);
      const reason = `cannot reach ${destinationOf(decided.address, target.port)}: ${errorMessage(error)}`;
      if (established) client.destroy();
      else answerRaw(client, 502, reason);
    });
    client.once("close", () => upstream.destroy());
    upstream.once("close", () => {
      release();
      if (established) client.destroy();
    });
  }

  /** An absolute-form request (`GET http://host/path`) → the same request to the judged address. */
  private async forward(
    sandboxId: string | null,
    req: IncomingMessage,
    res: ServerResponse,
  ): Promise<void> {
    let url: URL;
    try {
      url = new URL(req.url ?? "");
    } catch {
      return answer(res, 400, "expected an absolute http:// URL (this is a proxy)");
    }
    if (url.protocol !== "http:") return answer(res, 400, "only http:// URLs; use CONNECT for TLS");
    const port = url.port === "" ? 80 : Number(url.port);
    const decided = await this.decide(sandboxId, url.hostname, port);
    if (!decided.ok) return answer(res, decided.status, decided.text);
    const upstream = httpRequest({
      host: decided.address,
      port,
      method: req.method,
      path: `${url.pathname}${url.search}`,
      headers: withoutHopHeaders(req.headers),
      setHost: false,
      // A connection of its own: a kept-alive one shared between sandboxes could carry one's
      // bytes into another's response.
      agent: false,
    });
    upstream.once("response", (reply) => {
      res.writeHead(reply.statusCode ?? 502, reply.headers);
      reply.pipe(res);
    });
    upstream.once("error", (error) => {
      if (!res.headersSent) answer(res, 502, `cannot reach ${url.host}: ${errorMessage(error)}`);
      else res.destroy();
    });
    upstream.once("close", decided.release);
    res.once("close", () => upstream.destroy());
    req.pipe(upstream);
  }

  private async decide(
    sandboxId: string | null,
    host: string,
    port: number,
  ): Promise<
    { ok: true; address: string; release: () => void } | { ok: false; status: number; text: string }
  > {
    const context = sandboxId === null ? null : this.contextOf(sandboxId);
    const destination = destinationOf(host.replace(/^\[|\]$/g, ""), port);
    if (sandboxId === null || context === null) {
      return { ok: false, status: 403, text: `${destination} refused: unknown sandbox` };
    }
    let decision: Awaited<ReturnType<typeof decideProxyTarget>>;
    try {
      decision = await decideProxyTarget(host, port, context, (name) =>
        this.lookup(sandboxId, name),
      );
    } catch (error) {
      this.logger.warn(
        { sandboxId, destination, reason: errorMessage(error) },
        "proxy lookup failed",
      );
      return { ok: false, status: 502, text: `${destination}: lookup failed` };
    }
    if (!decision.allowed) {
      if (decision.status === 403) {
        this.logger.info({ sandboxId, destination, rule: decision.rule }, "egress denied");
        this.onDenied({ sandboxId, destination, rule: decision.rule, at: new Date() });
        return { ok: false, status: 403, text: `${destination} refused by rule: ${decision.rule}` };
      }
      return { ok: false, status: decision.status, text: `${destination}: ${decision.rule}` };
    }
    const open = this.tunnels.get(sandboxId) ?? 0;
    if (open >= TUNNELS_PER_SANDBOX) {
      return { ok: false, status: 503, text: `too many connections through the proxy (${open})` };
    }
    this.tunnels.set(sandboxId, open + 1);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      const left = (this.tunnels.get(sandboxId) ?? 1) - 1;
      if (left <= 0) this.tunnels.delete(sandboxId);
      else this.tunnels.set(sandboxId, left);
    };
    return { ok: true, address: decision.address, release };
  }
}

/** `host:port` of a CONNECT (IPv6 in brackets); null when malformed. */
function parseAuthority(authority: string): { host: string; port: number } | null {
  const match = /^(\[[0-9a-fA-F:.]+\]|[^:[\]\s/]+):(\d{1,5})$/.exec(authority);
  const port = Number(match?.[2]);
  if (!match?.[1] || !Number.isInteger(port) || port < 1 || port > 65535) return null;
  return { host: match[1], port };
}

const HOP_HEADERS = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authorization",
  "proxy-authenticate",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);

function withoutHopHeaders(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  return Object.fromEntries(
    Object.entries(headers).filter(([name]) => !HOP_HEADERS.has(name.toLowerCase())),
  );
}

const REASONS: Record<number, string> = {
  400: "Bad Request",
  403: "Forbidden",
  502: "Bad Gateway",
  503: "Service Unavailable",
};

function answer(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { "content-type": "text/plain; charset=utf-8", connection: "close" });
  res.end(`${text}\n`);
}

/** An HTTP answer on a CONNECT's raw socket, which is then closed. */
function answerRaw(client: Socket, status: number, text: string): void {
  const body = `${text}\n`;
  client.end(
    `HTTP/1.1 ${status} ${REASONS[status] ?? "Error"}\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

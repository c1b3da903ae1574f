import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import type { Api } from "./api";
import type { ServerState } from "./context";
import { ConfigError, DEFAULT_LIMITS, type HttpLimits } from "./env";
import { AppError } from "./errors";
import { realFilesRoot } from "./files/files-root";
import { answerProbe } from "./health/routes";
import { createKeyChecker, SESSION_KEY_HEADER } from "./http/auth";
import { answerClientErrors, trackResponse } from "./http/client-errors";
import { applyCors } from "./http/cors";
import { sendError } from "./http/errors";
import { watchIdleBodies } from "./http/idle-bodies";
import { logRequest } from "./http/request-log";
import { discardRest, sendJson } from "./http/respond";
import { readRotatedKey, rotateSessionKey } from "./http/session-keys";
import { describeError, type Logger, silentLogger } from "./logger";
import { openPortTunnel, tunnelPort } from "./ports/port-tunnel";
import { VERSION } from "./version";

export interface AgentServerOptions {
  /** Conversations and events live under `<dataDir>/conversations`. */
  dataDir: string;
  /** Default working directory of conversations and commands. */
  workspaceDir: string;
  /** Accepted `X-Session-API-Key` values; empty or absent: no auth. */
  sessionApiKeys?: readonly string[];
  /** Wins over an api_key in a conversation's agent. */
  llmApiKey?: string;
  /** Environment of commands run in the sandbox (default: none but PATH and HOME). */
  commandEnv?: Record<string, string>;
  logger?: Logger;
  /** WebSocket ping interval (default 30 s); clients silent for two intervals are dropped. */
  socketHeartbeatMs?: number;
  /** The file routes serve only paths inside this directory (default `/`). Must exist. */
  filesRoot?: string;
  /** Timeouts and body limits (defaults: DEFAULT_LIMITS). */
  limits?: Partial<HttpLimits>;
}

export interface BoundAddress {
  host: string;
  port: number;
}

export interface AgentServer {
  /** Loads the stored conversations (if any), then listens. Port 0 picks a free port. */
  listen(port: number, host?: string): Promise<BoundAddress>;
  /** Stops agents and commands, closes sockets and connections. */
  close(): Promise<void>;
  /** True once the API (zod, agents, store) is loaded: at the first call, or at start when there
   * are stored conversations. */
  readonly apiLoaded: boolean;
}

/**
 * The HTTP server. Probes, auth and request framing are answered here, from the first instant;
 * everything behind `/api` and `/sockets` is loaded on first use (api.ts), which keeps a fresh
 * sandbox's start fast and its memory small.
 */
export function createAgentServer(options: AgentServerOptions): AgentServer {
  const logger = options.logger ?? silentLogger;
  const limits: HttpLimits = { ...DEFAULT_LIMITS, ...options.limits };
  const state: ServerState = {
    logger,
    keys: createKeyChecker(startKeys(options)),
    limits,
    workspaceDir: options.workspaceDir,
    version: VERSION,
    startedAt: Date.now(),
    lastActivityAt: Date.now(),
    ready: false,
  };
  const filesRoot = resolveFilesRoot(options.filesRoot ?? "/");
  let api: Api | undefined;
  let loading: Promise<Api> | undefined;
  const loadApi = (): Promise<Api> => {
    loading ??= import("./api").then(({ createApi }) => {
      api = createApi(state, {
        dataDir: options.dataDir,
        commandEnv: options.commandEnv ?? defaultCommandEnv(),
        llmApiKey: options.llmApiKey,
        filesRoot,
        socketHeartbeatMs: options.socketHeartbeatMs,
      });
      return api;
    });
    // A failed load (an unreadable data directory) is tried again by the next call.
    loading.catch(() => {
      loading = undefined;
    });
    return loading;
  };
  const idleBodies = watchIdleBodies(limits.bodyIdleTimeoutMs);
  const workload = () => api?.workload() ?? { conversations: 0, runningConversations: 0 };

  const server = http.createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      // How often Node checks the two timeouts above; finer than its 30 s default for short ones.
      connectionsCheckingInterval: Math.min(30_000, Math.max(50, limits.headersTimeoutMs / 4)),
    },
    (req, res) => {
      trackResponse(req.socket, res);
      idleBodies.watch(req, res);
      logRequest(logger, req, res);
      if (applyCors(req, res)) {
        discardRest(req);
        return;
      }
      handleRequest(req, res).catch((error: unknown) => sendError(req, res, error, logger));
    },
  );
  answerClientErrors(server);
  server.on("upgrade", (req: http.IncomingMessage, socket, head: Buffer) => {
    const port = tunnelPort(req.url);
    if (port !== null) {
      if (!state.keys.accepts(headerValue(req.headers[SESSION_KEY_HEADER]))) {
        socket.on("error", () => socket.destroy());
        socket.end(UNAUTHORIZED_UPGRADE);
        return;
      }
      // Traffic through a port counts as activity, as API calls do.
      state.lastActivityAt = Date.now();
      openPortTunnel(req, socket, head, port, (server.address() as AddressInfo).port);
      return;
    }
    if (!(req.url ?? "").startsWith("/sockets/events/")) {
      socket.on("error", () => socket.destroy());
      socket.end("HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
      return;
    }
    loadApi()
      .then((loaded) => loaded.upgrade(req, socket, head))
      .catch((error: unknown) => {
        logger.error("socket upgrade failed", { error: describeError(error) });
        socket.destroy();
      });
  });

  const handleRequest = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    const encoding = req.headers["content-encoding"];
    if (encoding !== undefined && encoding.trim().toLowerCase() !== "identity") {
      throw new AppError(
        "UNSUPPORTED_MEDIA_TYPE",
        "Content-Encoding is not supported: send the body uncompressed",
      );
    }
    const pathname = (req.url ?? "/").split("?")[0] ?? "/";
    const route = pathname.length > 1 ? pathname.replace(/\/+$/, "") : pathname;
    if (route !== "/api" && !route.startsWith("/api/")) {
      const isGet = req.method === "GET" || req.method === "HEAD";
      if (!isGet || !answerProbe(state, workload, route, res)) {
        discardRest(req);
        sendJson(res, { detail: "Not Found" }, 404);
      }
      return;
    }
    if (!state.keys.accepts(headerValue(req.headers[SESSION_KEY_HEADER]))) {
      discardRest(req);
      sendJson(res, { detail: "Unauthorized" }, 401);
      return;
    }
    if (route === "/api/session-keys" && req.method === "POST") {
      await rotateSessionKey(req, res, state.keys, options.dataDir);
      return;
    }
    // Probes do not count as activity: only API calls (and socket traffic) keep a sandbox busy.
    state.lastActivityAt = Date.now();
    await (api ?? (await loadApi())).handle(req, res);
  };

  let closing: Promise<void> | undefined;
  return {
    get apiLoaded() {
      return api !== undefined;
    },
    async listen(port, host = "127.0.0.1") {
      // A data directory that cannot be created fails the start; stored conversations are
      // loaded now, so runs interrupted by a restart are marked at start, not at first use.
      const conversations = path.join(options.dataDir, "conversations");
      fs.mkdirSync(conversations, { recursive: true });
      if (fs.readdirSync(conversations).length > 0) await loadApi();
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(port, host, () => {
          server.off("error", reject);
          resolve();
        });
      });
      state.ready = true;
      const address = server.address() as AddressInfo;
      return { host: address.address, port: address.port };
    },
    close() {
      closing ??= (async () => {
        state.ready = false;
        idleBodies.stop();
        const loaded = await loading;
        await loaded?.close();
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeIdleConnections();
          setTimeout(() => server.closeAllConnections(), 1000).unref();
        });
      })();
      return closing;
    },
  };
}

const UNAUTHORIZED_UPGRADE =
  'HTTP/1.1 401 Unauthorized\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: 25\r\nConnection: close\r\n\r\n{"detail":"Unauthorized"}';

/** A key rotated earlier (kept in the data directory) wins over the keys the server was given. */
function startKeys(options: AgentServerOptions): readonly string[] {
  const given = options.sessionApiKeys ?? [];
  if (given.length === 0) return given;
  const rotated = readRotatedKey(options.dataDir);
  return rotated ? [rotated] : given;
}

function resolveFilesRoot(root: string): string {
  try {
    return realFilesRoot(root);
  } catch {
    throw new ConfigError(`FILES_ROOT ${JSON.stringify(root)} does not exist`);
  }
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return typeof value === "string" ? value : undefined;
}

function defaultCommandEnv(): Record<string, string> {
  return { PATH: "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" };
}

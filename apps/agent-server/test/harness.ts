import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type {
  AgentEvent,
  ConversationInfo,
  ExecutionStatus,
} from "@sandbox-server/agent-contracts";
import { vi } from "vitest";
import { type AgentServer, type AgentServerOptions, createAgentServer } from "../src/server";

export const SESSION_KEY = "test-session-key";

export interface TestServer {
  server: AgentServer;
  baseUrl: string;
  wsUrl: string;
  dataDir: string;
  workspaceDir: string;
  /** JSON request with the session key; returns status and parsed body. */
  api<T = unknown>(
    method: string,
    route: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; body: T }>;
  /** Closes the server (the temporary directories stay until `dispose`). */
  close(): Promise<void>;
  /** A new server on the same directories, as after a restart. */
  restart(): Promise<TestServer>;
  dispose(): Promise<void>;
}

type Options = Partial<AgentServerOptions>;

/** A real agent server on an ephemeral 127.0.0.1 port, with its own temporary directories. */
export async function startTestServer(
  options: Options = {},
  dirs?: { dataDir: string; workspaceDir: string },
): Promise<TestServer> {
  const base = dirs ?? makeDirs();
  const server = createAgentServer({
    sessionApiKeys: [SESSION_KEY],
    commandEnv: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
    ...options,
    ...base,
  });
  const { port } = await server.listen(0, "127.0.0.1");
  const baseUrl = `http://127.0.0.1:${port}`;
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await server.close();
  };
  return {
    server,
    baseUrl,
    wsUrl: `ws://127.0.0.1:${port}`,
    ...base,
    async api(method, route, body, headers = {}) {
      const response = await fetch(`${baseUrl}${route}`, {
        method,
        headers: {
          "x-session-api-key": SESSION_KEY,
          ...(body !== undefined && { "content-type": "application/json" }),
          ...headers,
        },
        body:
          body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
      });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : undefined };
    },
    close,
    async restart() {
      await close();
      return startTestServer(options, base);
    },
    async dispose() {
      await close();
      fs.rmSync(path.dirname(base.dataDir), { recursive: true, force: true });
    },
  };
}

function makeDirs() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "agent-server-test-"));
  const dataDir = path.join(root, "data");
  const workspaceDir = path.join(root, "workspace");
  fs.mkdirSync(workspaceDir, { recursive: true });
  return { dataDir, workspaceDir };
}

/** Polls `check` (vitest's `vi.waitFor`) until it returns a value (not undefined). */
export function waitFor<T>(
  check: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 10_000,
): Promise<T> {
  return vi.waitFor(
    async () => {
      const value = await check();
      if (value === undefined) throw new Error("waitFor: condition not met in time");
      return value;
    },
    { timeout: timeoutMs, interval: 20 },
  );
}

/** Resolves once the conversation has the status. */
export function waitForStatus(
  server: TestServer,
  id: string,
  status: ExecutionStatus,
): Promise<ConversationInfo> {
  return waitFor(async () => {
    const { body } = await server.api<ConversationInfo>("GET", `/api/conversations/${id}`);
    return body?.execution_status === status ? body : undefined;
  });
}

/** True while the process exists and is not a zombie waiting to be reaped. */
export function isProcessAlive(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

/** Creates a conversation (a shell agent unless the body says otherwise). */
export async function createConversation(
  server: TestServer,
  body: Record<string, unknown> = {},
): Promise<ConversationInfo> {
  const response = await server.api<ConversationInfo>("POST", "/api/conversations", {
    agent: { kind: "shell" },
    ...body,
  });
  if (response.status !== 201) throw new Error(`create answered ${response.status}`);
  return response.body;
}

/** POSTs a one-text user message; `run` is left out unless given. */
export function sendText(server: TestServer, id: string, text: string, run?: boolean) {
  return server.api("POST", `/api/conversations/${id}/events`, {
    content: [{ type: "text", text }],
    run,
  });
}

export async function listEvents(
  server: TestServer,
  id: string,
  query = "",
): Promise<AgentEvent[]> {
  const route = `/api/conversations/${id}/events/search?${query}`;
  return (await server.api<{ items: AgentEvent[] }>("GET", route)).body.items;
}

/** Follows next_page_id from `route` (which has a query) to the end; ids in order, page count. */
export async function collectPages(server: TestServer, route: string) {
  const ids: string[] = [];
  let pages = 0;
  let pageId: string | null = null;
  do {
    const suffix: string = pageId ? `&page_id=${pageId}` : "";
    const page = await server.api<{ items: { id: string }[]; next_page_id: string | null }>(
      "GET",
      `${route}${suffix}`,
    );
    if (page.status !== 200) throw new Error(`search answered ${page.status}`);
    ids.push(...page.body.items.map((item) => item.id));
    pageId = page.body.next_page_id;
    pages++;
  } while (pageId);
  return { ids, pages };
}

/** A fresh server with one shell conversation. */
export async function startWithConversation(
  options: Options = {},
): Promise<{ server: TestServer; id: string }> {
  const server = await startTestServer(options);
  return { server, id: (await createConversation(server)).id };
}

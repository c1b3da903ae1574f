import http from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import WebSocket from "ws";

/*
 * What OpenHands' clients put on the wire, one helper per client convention (headers, bodies,
 * content types), so the tests in openhands-clients.test.ts read like the clients' own code.
 * Sources are cited in /work/openhands-compat.md §1.2, §1.6 and §4.
 */

export interface Answer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: answers are inspected structurally, as the clients do
  body: any;
}

export interface CallOptions {
  /** A JSON body (serialised as the client serialises it). */
  json?: unknown;
  /** Bytes sent as they are (the TS CloudWorkspace's empty body with a JSON content type). */
  raw?: string;
  headers?: Record<string, string>;
}

export type Call = (method: string, url: string, options?: CallOptions) => Promise<Answer>;

async function answerOf(res: Response): Promise<Answer> {
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // not JSON: keep the text
  }
  return { status: res.status, body };
}

/**
 * A client that sends `baseHeaders` on every request, and `Content-Type: application/json` on
 * every request (`jsonOnEveryRequest`: the CLI, the TS clients) or only with a JSON body (axios in
 * the web app, httpx in the SDK; a bodiless httpx POST carries no content type at all).
 */
export function client(baseHeaders: Record<string, string>, jsonOnEveryRequest: boolean): Call {
  return async (method, url, options = {}) => {
    const headers: Record<string, string> = { ...baseHeaders, ...options.headers };
    let body: string | undefined;
    if (options.json !== undefined) body = JSON.stringify(options.json);
    if (options.raw !== undefined) body = options.raw;
    if (jsonOnEveryRequest || options.json !== undefined) {
      headers["content-type"] ??= "application/json";
    }
    return answerOf(await fetch(url, { method, headers, body }));
  };
}

/** Calls `read` until `done` holds for its answer (bounded), as the clients' polling loops do. */
export async function pollUntil<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  what: string,
  timeoutMs = 45_000,
  intervalMs = 200,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}; last: ${JSON.stringify(value)}`);
    await sleep(intervalMs);
  }
}

// biome-ignore lint/suspicious/noExplicitAny: agent-server frames are inspected structurally
export type Frame = Record<string, any>;

export interface EventSocket {
  frames: Frame[];
  socket: WebSocket;
  /** Waits (bounded) for a frame that satisfies `test`. */
  waitFor(test: (frame: Frame) => boolean, what: string): Promise<Frame>;
  close(): void;
}

/**
 * The agent server's event socket. `auth: "query"` is the web app's (`?session_api_key=` and the
 * deprecated `resend_all=true`); `auth: "first-frame"` is the SDK's and the TS client's (the first
 * frame `{"type": "auth", "session_api_key": ...}`).
 */
export async function openEventSocket(
  agentServerUrl: string,
  conversationId: string,
  sessionApiKey: string,
  auth: "query" | "first-frame",
): Promise<EventSocket> {
  const base = `${agentServerUrl.replace(/^http/, "ws")}/sockets/events/${conversationId}`;
  const url =
    auth === "query"
      ? `${base}?resend_all=true&session_api_key=${encodeURIComponent(sessionApiKey)}`
      : base;
  const socket = new WebSocket(url);
  const frames: Frame[] = [];
  const listeners = new Set<() => void>();
  socket.on("message", (data) => {
    frames.push(JSON.parse(data.toString()) as Frame);
    for (const listener of listeners) listener();
  });
  await new Promise<void>((resolve, reject) => {
    socket.once("open", () => resolve());
    socket.once("error", reject);
  });
  if (auth === "first-frame") {
    socket.send(JSON.stringify({ type: "auth", session_api_key: sessionApiKey }));
  }
  return {
    frames,
    socket,
    waitFor(test, what) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = frames.find(test);
          if (!found) return;
          listeners.delete(check);
          clearTimeout(timer);
          resolve(found);
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(new Error(`no frame: ${what}; got ${frames.map((f) => f.kind).join(", ")}`));
        }, 30_000);
        listeners.add(check);
        check();
      });
    },
    close: () => socket.close(),
  };
}

/** Whether an event is the agent's message whose text contains `text`. */
export function isAgentReply(event: Frame, text: string): boolean {
  return (
    event.kind === "MessageEvent" &&
    event.source === "agent" &&
    JSON.stringify(event.llm_message ?? {}).includes(text)
  );
}

/**
 * A scripted OpenAI-compatible endpoint for the SDK's `Agent` (an LLM agent): every completion
 * calls the `finish` tool with `finishMessage`. Reachable from sandboxes of the process runtime,
 * which share the host's loopback.
 */
export async function startFakeLlm(finishMessage: string) {
  let calls = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      if (req.method !== "POST" || req.url !== "/v1/chat/completions") {
        res.writeHead(404).end();
        return;
      }
      calls += 1;
      const call = {
        id: `call-${calls}`,
        type: "function",
        function: { name: "finish", arguments: JSON.stringify({ message: finishMessage }) },
      };
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          id: `resp-${calls}`,
          choices: [
            {
              message: { role: "assistant", content: null, tool_calls: [call] },
              finish_reason: "tool_calls",
            },
          ],
          usage: { prompt_tokens: 1, completion_tokens: 1 },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    calls: () => calls,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

import { setMaxListeners } from "node:events";
import { type Dispatcher, Pool } from "undici";
import { AppError } from "../errors";

export interface AgentResponse {
  status: number;
  /** Parsed JSON body, or null when the body was empty or not JSON. */
  body: unknown;
}

export interface AgentRequest {
  method: Dispatcher.HttpMethod;
  path: string;
  body?: string | Buffer;
  timeoutMs?: number;
}

export interface AgentClientOptions {
  /** Upper bound for one call to an agent server (send-message's forward included). */
  requestTimeoutMs: number;
  connectTimeoutMs?: number;
  /** Keep-alive connections per agent server. */
  connections?: number;
}

/**
 * HTTP to agent servers over one keep-alive pool per agent server. Unreachable, timing-out and
 * 5xx-answering agent servers all surface as SANDBOX_UNAVAILABLE; 4xx answers are returned.
 */
export class AgentServerClient {
  private readonly pools = new Map<string, Pool>();
  private readonly deadlines = new SharedDeadlines();

  constructor(private readonly options: AgentClientOptions) {}

  private pool(baseUrl: string): Pool {
    let pool = this.pools.get(baseUrl);
    if (!pool) {
      pool = new Pool(baseUrl, {
        connections: this.options.connections ?? 32,
        connect: { timeout: this.options.connectTimeoutMs ?? 2000 },
        keepAliveTimeout: 30_000,
        pipelining: 1,
      });
      this.pools.set(baseUrl, pool);
    }
    return pool;
  }

  async request(baseUrl: string, sessionKey: string, req: AgentRequest): Promise<AgentResponse> {
    const timeout = req.timeoutMs ?? this.options.requestTimeoutMs;
    let response: { statusCode: number; text: string };
    try {
      response = await dispatchRequest(
        this.pool(baseUrl),
        {
          origin: baseUrl,
          method: req.method,
          path: req.path,
          headers: {
            "x-session-api-key": sessionKey,
            ...(req.body === undefined ? {} : { "content-type": "application/json" }),
          },
          body: req.body ?? null,
          headersTimeout: timeout,
          bodyTimeout: timeout,
        },
        this.deadlines.signal(timeout),
      );
    } catch (cause) {
      throw new AppError("SANDBOX_UNAVAILABLE", describeFailure(cause, timeout), { cause });
    }
    if (response.statusCode >= 500) {
      throw new AppError("SANDBOX_UNAVAILABLE", `The agent server answered ${response.statusCode}`);
    }
    return { status: response.statusCode, body: parseJson(response.text) };
  }

  /** Drops the pool of an agent server that is gone (deleted, restarted on another port). */
  async forget(baseUrl: string): Promise<void> {
    const pool = this.pools.get(baseUrl);
    if (!pool) return;
    this.pools.delete(baseUrl);
    await pool.destroy().catch(() => undefined);
  }

  async close(): Promise<void> {
    const pools = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(pools.map((p) => p.destroy().catch(() => undefined)));
  }
}

/** How far apart the start times of requests that share one deadline signal may be. */
const DEADLINE_WINDOW_MS = 100;

/**
 * Abort signals that bound a request's whole time (queueing for a connection included, which
 * undici's header and body timeouts do not cover). Requests begun within DEADLINE_WINDOW_MS of each
 * other with the same timeout share one signal, which fires `timeout + DEADLINE_WINDOW_MS` after
 * the first of them began: each gets at least its timeout and at most the window more. A timer and
 * a signal per request (AbortSignal.timeout) were a visible share of a forward's CPU.
 */
class SharedDeadlines {
  private current: { timeout: number; until: number; signal: AbortSignal } | null = null;

  signal(timeout: number): AbortSignal {
    const now = performance.now();
    const current = this.current;
    if (current && current.timeout === timeout && now < current.until) return current.signal;
    const signal = AbortSignal.timeout(timeout + DEADLINE_WINDOW_MS);
    // Every request of the window listens to it (and stops listening when it ends).
    setMaxListeners(0, signal);
    this.current = { timeout, until: now + DEADLINE_WINDOW_MS, signal };
    return signal;
  }
}

/**
 * One request through the pool's `dispatch`, its answer collected as text. `request()` wraps the
 * same dispatch in an async resource, a parsed-header object and a body stream that `text()` then
 * consumes: about a tenth of send-message's main-thread CPU for an answer of a few dozen bytes.
 * `signal` bounds the whole call (queueing for a connection included) and aborts it when it fires.
 */
function dispatchRequest(
  pool: Pool,
  options: Dispatcher.DispatchOptions,
  signal: AbortSignal,
): Promise<{ statusCode: number; text: string }> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    let controller: Dispatcher.DispatchController | null = null;
    let statusCode = 0;
    const chunks: Buffer[] = [];
    const onAbort = () => {
      if (controller) controller.abort(signal.reason);
      else settle(() => reject(signal.reason));
    };
    let settled = false;
    const settle = (done: () => void) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener("abort", onAbort);
      done();
    };
    signal.addEventListener("abort", onAbort, { once: true });
    pool.dispatch(options, {
      onRequestStart(started) {
        controller = started;
        if (settled) started.abort(signal.reason);
      },
      onResponseStart(_controller, status) {
        statusCode = status;
      },
      onResponseData(_controller, chunk) {
        chunks.push(chunk);
      },
      onResponseEnd() {
        settle(() => resolve({ statusCode, text: Buffer.concat(chunks).toString("utf8") }));
      },
      onResponseError(_controller, error) {
        settle(() => reject(error));
      },
    });
  });
}

function parseJson(text: string): unknown {
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

function describeFailure(cause: unknown, timeoutMs: number): string {
  const code = (cause as { code?: string } | null)?.code;
  const name = (cause as { name?: string } | null)?.name;
  if (code === "ECONNREFUSED") return "The agent server refused the connection";
  if (
    name === "TimeoutError" ||
    name === "AbortError" ||
    code === "UND_ERR_HEADERS_TIMEOUT" ||
    code === "UND_ERR_BODY_TIMEOUT" ||
    code === "UND_ERR_CONNECT_TIMEOUT"
  ) {
    return `The agent server did not answer within ${timeoutMs} ms`;
  }
  return "The agent server could not be reached";
}

/** The `detail` of an agent server's error body, as a string. */
export function agentErrorDetail(body: unknown): string {
  const detail = (body as { detail?: unknown } | null)?.detail;
  if (typeof detail === "string") return detail;
  if (detail !== undefined) return JSON.stringify(detail);
  return "The agent server rejected the request";
}

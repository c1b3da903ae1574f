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
    let response: Dispatcher.ResponseData;
    try {
      response = await this.pool(baseUrl).request({
        method: req.method,
        path: req.path,
        headers: {
          "x-session-api-key": sessionKey,
          ...(req.body === undefined ? {} : { "content-type": "application/json" }),
        },
        body: req.body,
        headersTimeout: timeout,
        bodyTimeout: timeout,
        signal: AbortSignal.timeout(timeout),
      });
    } catch (cause) {
      throw new AppError("SANDBOX_UNAVAILABLE", describeFailure(cause, timeout), { cause });
    }
    const text = await response.body.text().catch(() => "");
    if (response.statusCode >= 500) {
      throw new AppError("SANDBOX_UNAVAILABLE", `The agent server answered ${response.statusCode}`);
    }
    return { status: response.statusCode, body: parseJson(text) };
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

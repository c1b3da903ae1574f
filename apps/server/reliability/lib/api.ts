import http from "node:http";

export interface RequestOptions {
  /** JSON-encoded unless `rawBody` is given. */
  body?: unknown;
  rawBody?: string | Buffer;
  /** API key; the admin key when undefined, none when null. */
  key?: string | null;
  headers?: Record<string, string>;
  timeoutMs?: number;
}

export interface ApiResponse {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: responses are inspected structurally
  body: any;
  /** The body as received. */
  text: string;
  contentType: string;
}

export type Api = (method: string, route: string, options?: RequestOptions) => Promise<ApiResponse>;

/** A small REST client for the control plane: JSON in, JSON (or text) out. */
export function createApi(baseUrl: () => string, defaultKey: string): Api {
  return async (method, route, options = {}) => {
    const headers: Record<string, string> = { ...options.headers };
    const key = options.key === undefined ? defaultKey : options.key;
    if (key) headers.authorization = `Bearer ${key}`;
    let body: string | Buffer | undefined;
    if (options.rawBody !== undefined) body = options.rawBody;
    else if (options.body !== undefined) body = JSON.stringify(options.body);
    if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === "content-type"))
      headers["content-type"] = "application/json";
    const res = await fetch(`${baseUrl()}${route}`, {
      method,
      headers,
      body,
      signal: AbortSignal.timeout(options.timeoutMs ?? 60_000),
    });
    return toApiResponse(res);
  };
}

export async function toApiResponse(res: Response): Promise<ApiResponse> {
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // not JSON: keep the text
  }
  return { status: res.status, body, text, contentType: res.headers.get("content-type") ?? "" };
}

/** True for our error shape: a JSON object with a string `code`. */
export function isErrorBody(res: ApiResponse): boolean {
  return (
    res.contentType.includes("application/json") &&
    typeof res.body === "object" &&
    res.body !== null &&
    typeof res.body.code === "string" &&
    res.body.code.length > 0
  );
}

export interface RawRequest {
  method: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  timeoutMs?: number;
}

/**
 * A request exactly as given (fetch refuses bodies on GET and adds content types): for bad input.
 */
export function rawRequest(url: string, req: RawRequest): Promise<ApiResponse> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { ...req.headers };
    if (req.body !== undefined) headers["content-length"] = Buffer.byteLength(req.body);
    const outgoing = http.request(url, { method: req.method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("error", reject);
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        let body: unknown = text;
        try {
          body = text ? JSON.parse(text) : null;
        } catch {
          // not JSON: keep the text
        }
        resolve({
          status: res.statusCode ?? 0,
          body,
          text,
          contentType: String(res.headers["content-type"] ?? ""),
        });
      });
    });
    outgoing.setTimeout(req.timeoutMs ?? 30_000, () => outgoing.destroy(new Error("timed out")));
    outgoing.on("error", reject);
    outgoing.end(req.body);
  });
}

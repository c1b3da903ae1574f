export interface RequestOptions {
  body?: unknown;
  rawBody?: string;
  /** The bearer key; null sends none. */
  key?: string | null;
  headers?: Record<string, string>;
}

export interface ApiResponse {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: test responses are inspected structurally
  body: any;
}

/**
 * One call as the tests' clients make it: the key as a bearer token, a JSON body (or a raw one),
 * the answer parsed as JSON (kept as text when it is not JSON).
 */
export async function apiCall(
  baseUrl: string,
  method: string,
  route: string,
  options: RequestOptions = {},
): Promise<ApiResponse> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  let body: string | undefined;
  if (options.rawBody !== undefined) body = options.rawBody;
  else if (options.body !== undefined) body = JSON.stringify(options.body);
  if (body !== undefined && !headers["content-type"]) headers["content-type"] = "application/json";
  const res = await fetch(`${baseUrl}${route}`, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    // keep text
  }
  return { status: res.status, body: parsed };
}

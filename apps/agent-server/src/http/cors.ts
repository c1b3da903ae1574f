import type { IncomingMessage, ServerResponse } from "node:http";

const ALLOWED_METHODS = "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS";
const ALLOWED_HEADERS = "X-Session-API-Key, Content-Type, Authorization";
/** How long a browser may reuse a preflight answer (seconds). */
const PREFLIGHT_MAX_AGE = "600";

/**
 * Cross-origin access for browsers: OpenHands' web client calls a sandbox's agent server from its
 * own origin with `X-Session-API-Key`. Any origin is allowed, without credentials: the API is
 * authorised by that header alone (no cookies), which a page of another origin cannot know
 * unless it was given the key. Answers a preflight (`OPTIONS` with
 * `Access-Control-Request-Method`) at once, before the session-key check a preflight cannot pass;
 * returns whether it did.
 */
export function applyCors(req: IncomingMessage, res: ServerResponse): boolean {
  if (req.headers.origin === undefined) return false;
  res.setHeader("Access-Control-Allow-Origin", "*");
  const preflight =
    req.method === "OPTIONS" && req.headers["access-control-request-method"] !== undefined;
  if (!preflight) return false;
  res.statusCode = 204;
  res.setHeader("Access-Control-Allow-Methods", ALLOWED_METHODS);
  res.setHeader("Access-Control-Allow-Headers", ALLOWED_HEADERS);
  res.setHeader("Access-Control-Max-Age", PREFLIGHT_MAX_AGE);
  res.setHeader("Content-Length", "0");
  res.end();
  return true;
}

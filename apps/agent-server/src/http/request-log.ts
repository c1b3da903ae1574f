import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "../logger";

// Request ids only correlate log lines: a per-process prefix and a counter, no crypto needed.
const prefix = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
let counter = 0;

/**
 * One line per request with chosen fields (method, path, status, duration) and a request id,
 * echoed as `x-request-id`. Bodies, queries and headers are never logged: they hold keys and
 * messages.
 */
export function logRequest(logger: Logger, req: IncomingMessage, res: ServerResponse): void {
  const given = req.headers["x-request-id"];
  const requestId =
    typeof given === "string" && given.length <= 200 ? given : `${prefix}-${++counter}`;
  // process.hrtime, not performance.now: the global `performance` loads perf_hooks (a dozen
  // modules) at a sandbox's first request.
  const started = process.hrtime.bigint();
  res.setHeader("x-request-id", requestId);
  res.on("finish", () => {
    const fields = {
      request_id: requestId,
      method: req.method,
      path: (req.url ?? "").split("?")[0],
      status: res.statusCode,
      ms: Math.round(Number(process.hrtime.bigint() - started) / 1e6),
    };
    if (res.statusCode >= 500) logger.warn("request failed", fields);
    else logger.debug("request", fields);
  });
}

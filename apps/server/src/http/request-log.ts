import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import { type HttpMiddleware, type HttpRequest, type HttpResponse, pathOf } from "./http-types";

declare module "express-serve-static-core" {
  interface Request {
    id?: string;
  }
}

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;
const HEADER = "x-request-id";

/**
 * The request's id: the caller's `X-Request-Id` when sane, else one made now and sent back as
 * `x-request-id` while the response's head is still unsent. Made only when something needs it —
 * an access-log line, a logged error or a line the core logs for the request — not per request.
 */
export function requestIdOf(req: HttpRequest, res?: HttpResponse): string {
  if (req.id === undefined) {
    req.id = randomUUID();
    const response = res ?? (req as { res?: HttpResponse }).res;
    if (response && !response.headersSent) response.setHeader(HEADER, req.id);
  }
  return req.id;
}

/** A caller's request id is echoed; when access lines are written, one line per request. */
export function requestLog(log: Logger): HttpMiddleware {
  return (req, res, next) => {
    const given = req.headers[HEADER];
    if (typeof given === "string" && REQUEST_ID.test(given)) {
      req.id = given;
      res.setHeader(HEADER, given);
    }
    // Nothing more per request unless access lines are actually written (hot path).
    if (!log.isLevelEnabled("info")) {
      next();
      return;
    }
    const requestId = requestIdOf(req, res);
    const started = process.hrtime.bigint();
    res.on("finish", () => {
      // The path only: query strings and bodies can carry data we never log.
      log.info(
        {
          requestId,
          method: req.method,
          path: pathOf(req.originalUrl ?? req.url ?? ""),
          status: res.statusCode,
          ms: Number(process.hrtime.bigint() - started) / 1e6,
        },
        "request",
      );
    });
    next();
  };
}

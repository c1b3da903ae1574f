import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import { type HttpMiddleware, pathOf } from "./http-types";

declare module "express-serve-static-core" {
  interface Request {
    id: string;
  }
}

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** A request id (the caller's X-Request-Id when sane) and one access-log line per request. */
export function requestLog(log: Logger): HttpMiddleware {
  return (req, res, next) => {
    const given = req.headers["x-request-id"];
    req.id = typeof given === "string" && REQUEST_ID.test(given) ? given : randomUUID();
    res.setHeader("x-request-id", req.id);
    // Nothing more per request unless access lines are actually written (hot path).
    if (!log.isLevelEnabled("info")) {
      next();
      return;
    }
    const started = process.hrtime.bigint();
    res.on("finish", () => {
      // The path only: query strings and bodies can carry data we never log.
      log.info(
        {
          requestId: req.id,
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

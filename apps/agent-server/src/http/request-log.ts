import { randomUUID } from "node:crypto";
import type { RequestHandler } from "express";
import type { Logger } from "../logger";

/**
 * One line per request with chosen fields (method, route, status, duration) and a request id,
 * echoed as `x-request-id`. Bodies and headers are never logged: they hold keys and messages.
 */
export function logRequests(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const requestId = req.get("x-request-id") ?? randomUUID();
    const started = performance.now();
    res.setHeader("x-request-id", requestId);
    res.on("finish", () => {
      const fields = {
        request_id: requestId,
        method: req.method,
        path: req.path,
        status: res.statusCode,
        ms: Math.round(performance.now() - started),
      };
      if (res.statusCode >= 500) logger.warn("request failed", fields);
      else logger.debug("request", fields);
    });
    next();
  };
}

import type { IncomingMessage, ServerResponse } from "node:http";
import { AppError, type ErrorCode } from "../errors";
import { describeError, type Logger } from "../logger";
import { discardRest, sendJson } from "./respond";

/** The only place where error codes become HTTP statuses. */
const statusOf: Record<ErrorCode, number> = {
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  VALIDATION_FAILED: 422,
  NOT_READY: 503,
  INSUFFICIENT_STORAGE: 507,
};

export function httpStatusOf(code: ErrorCode): number {
  return statusOf[code];
}

/**
 * Turns anything thrown into `{"detail": ...}`. AppErrors are expected (no error log); anything
 * else is logged with the request's id and answered with a bare 500.
 */
export function sendError(
  req: IncomingMessage,
  res: ServerResponse,
  error: unknown,
  logger: Logger,
): void {
  if (!(error instanceof AppError)) {
    logger.error("request failed", {
      request_id: String(res.getHeader("x-request-id") ?? ""),
      method: req.method,
      path: (req.url ?? "").split("?")[0],
      error: describeError(error),
    });
  }
  if (res.headersSent || res.destroyed) {
    res.destroy();
    return;
  }
  // The body may not have been read (413, 415, a route that failed early).
  discardRest(req);
  if (error instanceof AppError) sendJson(res, { detail: error.detail }, httpStatusOf(error.code));
  else sendJson(res, { detail: "Internal Server Error" }, 500);
}

import type { ErrorRequestHandler, RequestHandler } from "express";
import { AppError, type ErrorCode } from "../errors";
import { describeError, type Logger } from "../logger";

/** The only place where error codes become HTTP statuses. */
const statusOf: Record<ErrorCode, number> = {
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  NOT_FOUND: 404,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  VALIDATION_FAILED: 422,
  NOT_READY: 503,
};

export function httpStatusOf(code: ErrorCode): number {
  return statusOf[code];
}

export const handleUnknownRoute: RequestHandler = (_req, res) => {
  res.status(404).json({ detail: "Not Found" });
};

/** Turns anything thrown into `{"detail": ...}`; unknown errors are logged, never sent. */
export function createErrorHandler(logger: Logger): ErrorRequestHandler {
  return (error: unknown, req, res, _next) => {
    const known = toAppError(error);
    if (!known) {
      logger.error("request failed", {
        request_id: String(res.getHeader("x-request-id") ?? ""),
        method: req.method,
        path: req.path,
        error: describeError(error),
      });
    }
    if (res.headersSent) {
      res.destroy();
      return;
    }
    if (known) res.status(httpStatusOf(known.code)).json({ detail: known.detail });
    else res.status(500).json({ detail: "Internal Server Error" });
  };
}

/** Body-parser failures carry a `type`; map them to our codes. */
function toAppError(error: unknown): AppError | undefined {
  if (error instanceof AppError) return error;
  const type = typeof error === "object" && error !== null && "type" in error ? error.type : null;
  if (type === "entity.parse.failed") {
    return new AppError("VALIDATION_FAILED", [
      { type: "json_invalid", loc: ["body"], msg: "Request body is not valid JSON" },
    ]);
  }
  if (type === "entity.too.large")
    return new AppError("PAYLOAD_TOO_LARGE", "Request body too large");
  if (type === "encoding.unsupported" || type === "charset.unsupported") {
    return new AppError("BAD_REQUEST", "Unsupported request encoding");
  }
  return undefined;
}

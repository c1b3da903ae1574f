import type { DescribedError } from "@sandbox-server/core";
import type { ErrorRequestHandler, NextFunction, Request, Response } from "express";

export function sendError(
  res: Response,
  status: number,
  code: string,
  message: string,
  extra: Record<string, unknown> = {},
): void {
  res.status(status).json({ code, message, ...extra });
}

/** An error as `describeError` tells it, in the REST error body. */
export function sendDescribedError(res: Response, described: DescribedError): void {
  sendError(res, described.status, String(described.code), described.message, {
    ...(described.issues ? { issues: described.issues } : {}),
    ...(described.details ? { details: described.details } : {}),
  });
}

/** Body-parser failures (malformed JSON, too large) as our JSON error bodies. */
export const bodyErrorHandler: ErrorRequestHandler = (error, _req, res, next) => {
  const type = (error as { type?: string }).type;
  if (type === "entity.parse.failed") {
    sendError(res, 422, "MALFORMED_JSON", "The request body is not valid JSON");
  } else if (type === "entity.too.large") {
    sendError(res, 413, "PAYLOAD_TOO_LARGE", "The request body is too large");
  } else if (type === "encoding.unsupported" || type === "charset.unsupported") {
    sendError(res, 415, "UNSUPPORTED_MEDIA_TYPE", "Unsupported body encoding");
  } else {
    next(error);
  }
};

interface TrpcErrorBody {
  message?: unknown;
  data?: { code?: unknown; issues?: unknown; details?: unknown };
}

/**
 * trpc-to-openapi writes `{message, code: <tRPC code>, data, issues}` for errors; REST clients
 * get `{code: <our code>, message, issues?, details?}` instead. Successful bodies pass untouched.
 */
export function reshapeRestErrors(_req: Request, res: Response, next: NextFunction): void {
  const end = res.end.bind(res) as (...args: unknown[]) => Response;
  res.end = ((chunk?: unknown, ...rest: unknown[]) => {
    if (res.statusCode >= 400 && typeof chunk === "string") {
      try {
        const body = JSON.parse(chunk) as TrpcErrorBody;
        const reshaped = {
          code: typeof body.data?.code === "string" ? body.data.code : "INTERNAL",
          message: typeof body.message === "string" ? body.message : "Error",
          ...(body.data?.issues ? { issues: body.data.issues } : {}),
          ...(body.data?.details ? { details: body.data.details } : {}),
        };
        const text = JSON.stringify(reshaped);
        res.setHeader("content-length", Buffer.byteLength(text));
        return end(text, ...rest);
      } catch {
        // not ours: leave it
      }
    }
    return end(chunk, ...rest);
  }) as Response["end"];
  next();
}

/** Last resort: anything unexpected is a generic 500, its cause logged, never sent. */
export function finalErrorHandler(log: {
  error(obj: object, msg?: string): void;
}): ErrorRequestHandler {
  return (error, req, res, _next) => {
    log.error({ err: error, requestId: req.headers["x-request-id"] }, "unhandled request error");
    if (res.headersSent) {
      res.end();
      return;
    }
    sendError(res, 500, "INTERNAL", "Internal server error");
  };
}

import {
  AppError,
  type DescribedError,
  describeError,
  type ErrorCode,
  isInternal,
} from "@sandbox-server/core";
import type { ErrorRequestHandler } from "express";
import type { Logger } from "pino";
import type { HttpResponse } from "./http-types";
import { requestIdOf } from "./request-log";
import { sendJson } from "./send-json";

/**
 * `detail`: the message as one string, with every validation issue (`path: message`) after it.
 * OpenHands' clients show `detail` when it is a string (FastAPI's own is a string, or a list
 * for validation errors, which they cannot show).
 */
export function detailOf(error: DescribedError): string {
  if (!error.issues?.length) return error.message;
  const issues = error.issues.map((issue) =>
    issue.path.length > 0 ? `${issue.path.join(".")}: ${issue.message}` : issue.message,
  );
  return `${error.message}: ${issues.join("; ")}`;
}

/** The REST error body: `{code, message, detail, issues?, details?}`, plus `Retry-After` when due. */
export function errorBody(error: DescribedError): Record<string, unknown> {
  return {
    code: error.code,
    message: error.message,
    detail: detailOf(error),
    ...(error.issues ? { issues: error.issues } : {}),
    ...(error.details ? { details: error.details } : {}),
  };
}

export function sendDescribedError(res: HttpResponse, error: DescribedError): void {
  if (error.retryAfterSeconds) res.setHeader("retry-after", String(error.retryAfterSeconds));
  sendJson(res, error.status, errorBody(error));
}

/** Answers with one of our codes, its status and message from the error table. */
export function sendErrorCode(res: HttpResponse, code: ErrorCode, message?: string): void {
  sendDescribedError(res, describeError(new AppError(code, message)));
}

/**
 * Describes what was thrown; only an internal error (a bug or an outage of ours) is logged, with its
 * cause. Expected errors (4xx, 503) are answers, not incidents.
 */
export function describeAndLog(
  log: Logger,
  error: unknown,
  /** The log line's fields (the request id among them), asked for only when a line is logged. */
  fields: () => Record<string, unknown>,
): DescribedError {
  const described = describeError(error);
  if (isInternal(described)) {
    const cause = error instanceof Error && error.cause !== undefined ? error.cause : error;
    log.error({ err: cause, ...fields() }, "internal error");
  }
  return described;
}

/** Last resort for errors thrown in express middleware: described like every other error. */
export function finalErrorHandler(log: Logger): ErrorRequestHandler {
  return (error, req, res, _next) => {
    const described = describeAndLog(log, error, () => ({ requestId: requestIdOf(req, res) }));
    if (res.headersSent) {
      res.end();
      return;
    }
    sendDescribedError(res, described);
  };
}

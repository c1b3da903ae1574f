import type { TRPCError } from "@trpc/server";
import { getHTTPStatusCodeFromError } from "@trpc/server/http";
import { AppError, type ErrorCode, type ErrorIssue, errorCodes } from "./errors";

export interface DescribedError {
  code: ErrorCode | string;
  status: number;
  message: string;
  issues?: ErrorIssue[];
  details?: Record<string, unknown>;
}

interface ZodLikeIssue {
  path: PropertyKey[];
  message: string;
  code?: string;
}

function isZodError(value: unknown): value is Error & { issues: ZodLikeIssue[] } {
  return value instanceof Error && value.name === "ZodError" && "issues" in value;
}

/**
 * better-sqlite3's SqliteError for a database another connection holds locked past the busy
 * timeout (SQLITE_BUSY, SQLITE_LOCKED and their extended codes): a transient condition, not a bug.
 */
function isSqliteBusy(value: unknown): boolean {
  const code = (value as { code?: unknown } | null)?.code;
  return (
    value instanceof Error &&
    typeof code === "string" &&
    (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED"))
  );
}

function toIssues(issues: ZodLikeIssue[]): ErrorIssue[] {
  return issues.map((issue) => ({
    path: issue.path.map((p) => (typeof p === "number" ? p : String(p))),
    message: issue.message,
    ...(issue.code ? { code: issue.code } : {}),
  }));
}

const genericMessages: Partial<Record<TRPCError["code"], [ErrorCode | string, string]>> = {
  BAD_REQUEST: ["BAD_REQUEST", "Bad request"],
  UNAUTHORIZED: ["UNAUTHORIZED", "A valid API key is required"],
  FORBIDDEN: ["FORBIDDEN", "Not allowed"],
  NOT_FOUND: ["NOT_FOUND", "Not found"],
  PARSE_ERROR: ["MALFORMED_JSON", "The request body is not valid JSON"],
  PAYLOAD_TOO_LARGE: ["PAYLOAD_TOO_LARGE", "The request body is too large"],
  UNSUPPORTED_MEDIA_TYPE: ["UNSUPPORTED_MEDIA_TYPE", "The request body must be application/json"],
  METHOD_NOT_SUPPORTED: ["METHOD_NOT_SUPPORTED", "Method not supported"],
};

/**
 * The single translation from any thrown error to what a client sees: code, HTTP status, message.
 * Unknown errors become a generic 500; their message never leaves the server.
 */
export function describeError(error: TRPCError): DescribedError {
  const cause = error.cause;
  if (cause instanceof AppError) {
    return {
      code: cause.code,
      status: cause.status,
      message: cause.message,
      ...(cause.issues ? { issues: cause.issues } : {}),
      ...(cause.details ? { details: cause.details } : {}),
    };
  }
  if (isZodError(cause)) {
    return {
      code: "VALIDATION_FAILED",
      status: errorCodes.VALIDATION_FAILED.status,
      message: "Input validation failed",
      issues: toIssues(cause.issues),
    };
  }
  if (isSqliteBusy(cause)) {
    return {
      code: "SERVICE_BUSY",
      status: errorCodes.SERVICE_BUSY.status,
      message: "The database is busy; retry shortly",
    };
  }
  if (cause instanceof SyntaxError) {
    return { code: "MALFORMED_JSON", status: 422, message: "The request body is not valid JSON" };
  }
  if (cause instanceof Error && cause.name === "InvalidPageIdError") {
    return {
      code: "VALIDATION_FAILED",
      status: errorCodes.VALIDATION_FAILED.status,
      message: "Input validation failed",
      issues: [{ path: ["page_id"], message: "page_id is not valid" }],
    };
  }
  const generic = genericMessages[error.code];
  if (generic) {
    const [code, fallback] = generic;
    const status = code === "MALFORMED_JSON" ? 422 : getHTTPStatusCodeFromError(error);
    // Messages of errors we raise ourselves (TRPCError without a cause) are safe to show.
    const message = error.cause === undefined && error.message ? error.message : fallback;
    return { code, status, message };
  }
  return { code: "INTERNAL", status: 500, message: "Internal server error" };
}

import { TRPCError } from "@trpc/server";
import type { TRPC_ERROR_CODE_KEY } from "@trpc/server/rpc";
import { AppError, type ErrorCode, type ErrorIssue, errorCodes } from "./errors";

export interface DescribedError {
  code: ErrorCode;
  status: number;
  message: string;
  issues?: ErrorIssue[];
  details?: Record<string, unknown>;
  /** `Retry-After` in seconds, when the code has one. */
  retryAfterSeconds?: number;
}

interface IssueLike {
  path: PropertyKey[];
  message: string;
  code?: string;
}

function hasIssues(value: unknown): value is Error & { issues: IssueLike[] } {
  return value instanceof Error && Array.isArray((value as { issues?: unknown }).issues);
}

function toIssues(issues: IssueLike[]): ErrorIssue[] {
  return issues.map((issue) => ({
    path: issue.path.map((p) => (typeof p === "number" ? p : String(p))),
    message: issue.message,
    ...(issue.code ? { code: issue.code } : {}),
  }));
}

/**
 * Errors tRPC raises itself (before or around a procedure), by their tRPC code. Any other tRPC
 * code without one of our errors behind it is internal.
 */
const fromTrpcCode: Partial<Record<TRPC_ERROR_CODE_KEY, ErrorCode>> = {
  PARSE_ERROR: "MALFORMED_JSON",
  BAD_REQUEST: "BAD_REQUEST",
  NOT_FOUND: "NOT_FOUND",
  METHOD_NOT_SUPPORTED: "METHOD_NOT_ALLOWED",
  PAYLOAD_TOO_LARGE: "PAYLOAD_TOO_LARGE",
  UNSUPPORTED_MEDIA_TYPE: "UNSUPPORTED_MEDIA_TYPE",
  TIMEOUT: "REQUEST_TIMEOUT",
};

/** Errors other packages throw by name (the db package's store errors), so core needs no import. */
const fromErrorName: Record<string, ErrorCode> = {
  StoreBusyError: "STORE_BUSY",
  StoreUnavailableError: "STORE_UNAVAILABLE",
};

function described(code: ErrorCode, extra: Partial<DescribedError> = {}): DescribedError {
  const entry: { status: number; message: string; retryAfterSeconds?: number } = errorCodes[code];
  return {
    code,
    status: entry.status,
    message: entry.message,
    ...(entry.retryAfterSeconds ? { retryAfterSeconds: entry.retryAfterSeconds } : {}),
    ...extra,
  };
}

function describeCause(cause: unknown): DescribedError | null {
  if (cause instanceof AppError) {
    return described(cause.code, {
      status: cause.status,
      message: cause.message,
      ...(cause.issues ? { issues: cause.issues } : {}),
      ...(cause.details ? { details: cause.details } : {}),
    });
  }
  if (!(cause instanceof Error)) return null;
  const byName = fromErrorName[cause.name];
  if (byName) return described(byName);
  if (cause.name === "InvalidPageIdError") {
    return described("VALIDATION_FAILED", {
      issues: [{ path: ["page_id"], message: "page_id is not valid" }],
    });
  }
  return null;
}

/**
 * The single translation from anything thrown to what a client sees: code, HTTP status, message
 * (and issues, details, Retry-After), for both surfaces. Only our own errors, the known errors of
 * other packages, input validation and tRPC's own request errors are described; everything else is
 * a generic 500 whose message never leaves the server (`code: "INTERNAL"`, the one kind to log).
 */
export function describeError(error: unknown): DescribedError {
  const direct = describeCause(error);
  if (direct) return direct;
  if (!(error instanceof TRPCError)) return described("INTERNAL");
  const fromCause = describeCause(error.cause);
  if (fromCause) return fromCause;
  // tRPC's input validation; a failed *output* validation is INTERNAL_SERVER_ERROR, a bug of ours.
  if (error.code === "BAD_REQUEST" && hasIssues(error.cause)) {
    return described("VALIDATION_FAILED", { issues: toIssues(error.cause.issues) });
  }
  // tRPC's reading of a request: a body or `?input=` that does not parse.
  if (error.code === "BAD_REQUEST" && error.cause instanceof SyntaxError) {
    return described("MALFORMED_JSON");
  }
  const code = fromTrpcCode[error.code];
  return code ? described(code) : described("INTERNAL");
}

/** Whether the error is a bug or an outage of ours (logged with its cause), not a client's mistake. */
export function isInternal(error: DescribedError): boolean {
  return error.code === "INTERNAL";
}

/**
 * Our errors as tRPC errors with the table's tRPC code, the original error as the cause. Without
 * this tRPC would call every `AppError` INTERNAL_SERVER_ERROR (-32603) on its own.
 */
export function toTRPCError(error: TRPCError): TRPCError {
  const description = describeError(error);
  if (isInternal(description)) return error;
  const code = errorCodes[description.code].trpc;
  if (code === error.code) return error;
  return new TRPCError({ code, message: description.message, cause: error.cause ?? error });
}

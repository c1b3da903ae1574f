/**
 * The one domain error of the agent server. Verbs throw it; the HTTP layer (http/errors.ts) and
 * the WebSocket translate it. `detail` is what the client sees, so it never holds internals.
 */
export type ErrorCode =
  | "BAD_REQUEST"
  | "UNAUTHORIZED"
  | "FORBIDDEN"
  | "NOT_FOUND"
  | "CONFLICT"
  | "PAYLOAD_TOO_LARGE"
  | "UNSUPPORTED_MEDIA_TYPE"
  | "VALIDATION_FAILED"
  | "NOT_READY"
  | "INSUFFICIENT_STORAGE";

export interface ValidationIssue {
  type: string;
  loc: (string | number)[];
  msg: string;
}

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    readonly detail: string | ValidationIssue[],
  ) {
    super(typeof detail === "string" ? detail : `${code}: ${detail.length} issue(s)`);
    this.name = "AppError";
  }
}

export const notFound = (what: string) => new AppError("NOT_FOUND", `${what} not found`);

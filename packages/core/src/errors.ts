import type { TRPC_ERROR_CODE_KEY } from "@trpc/server/rpc";

/** Stable, machine-readable error codes. Clients branch on these, never on messages. */
export const errorCodes = {
  VALIDATION_FAILED: { status: 422, trpc: "BAD_REQUEST" },
  MALFORMED_JSON: { status: 422, trpc: "PARSE_ERROR" },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, trpc: "UNSUPPORTED_MEDIA_TYPE" },
  PAYLOAD_TOO_LARGE: { status: 413, trpc: "PAYLOAD_TOO_LARGE" },
  UNAUTHORIZED: { status: 401, trpc: "UNAUTHORIZED" },
  FORBIDDEN: { status: 403, trpc: "FORBIDDEN" },
  NOT_FOUND: { status: 404, trpc: "NOT_FOUND" },
  SANDBOX_NOT_FOUND: { status: 404, trpc: "NOT_FOUND" },
  SANDBOX_SPEC_NOT_FOUND: { status: 404, trpc: "NOT_FOUND" },
  CONVERSATION_NOT_FOUND: { status: 404, trpc: "NOT_FOUND" },
  USER_NOT_FOUND: { status: 404, trpc: "NOT_FOUND" },
  WEBHOOK_NOT_FOUND: { status: 404, trpc: "NOT_FOUND" },
  API_KEY_NOT_FOUND: { status: 404, trpc: "NOT_FOUND" },
  LAST_API_KEY: { status: 409, trpc: "CONFLICT" },
  API_KEY_LIMIT_REACHED: { status: 409, trpc: "CONFLICT" },
  SPEC_NOT_SUPPORTED: { status: 422, trpc: "BAD_REQUEST" },
  INVALID_SANDBOX_STATE: { status: 409, trpc: "CONFLICT" },
  SANDBOX_NOT_RUNNING: { status: 409, trpc: "CONFLICT" },
  CONVERSATION_ARCHIVED: { status: 410, trpc: "PRECONDITION_FAILED" },
  SANDBOX_UNAVAILABLE: { status: 503, trpc: "SERVICE_UNAVAILABLE" },
  SANDBOX_START_FAILED: { status: 503, trpc: "SERVICE_UNAVAILABLE" },
  SANDBOX_LIMIT_REACHED: { status: 429, trpc: "TOO_MANY_REQUESTS" },
  /** The agent server answered 4xx; its status is passed through (AppError.status). */
  AGENT_SERVER_REJECTED: { status: 400, trpc: "BAD_REQUEST" },
  SERVICE_BUSY: { status: 503, trpc: "SERVICE_UNAVAILABLE" },
  INTERNAL: { status: 500, trpc: "INTERNAL_SERVER_ERROR" },
} as const satisfies Record<string, { status: number; trpc: TRPC_ERROR_CODE_KEY }>;

export type ErrorCode = keyof typeof errorCodes;

export interface ErrorIssue {
  path: (string | number)[];
  message: string;
  code?: string;
}

/** The one domain error. Its code decides the HTTP status and the tRPC code (see `errorCodes`). */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly issues: ErrorIssue[] | undefined;
  readonly details: Record<string, unknown> | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    options: {
      issues?: ErrorIssue[];
      details?: Record<string, unknown>;
      /** Only for AGENT_SERVER_REJECTED: the upstream 4xx status. */
      status?: number;
      cause?: unknown;
    } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = "AppError";
    this.code = code;
    this.status = options.status ?? errorCodes[code].status;
    this.issues = options.issues;
    this.details = options.details;
  }
}

export function trpcCodeOf(code: ErrorCode): TRPC_ERROR_CODE_KEY {
  return errorCodes[code].trpc;
}

import type { TRPC_ERROR_CODE_KEY } from "@trpc/server/rpc";

interface ErrorCodeEntry {
  /** HTTP status on both surfaces (REST status, tRPC `data.httpStatus` and response status). */
  status: number;
  /** tRPC error code (JSON-RPC `error.code`); tRPC has no 410, 422 or 431 of its own. */
  trpc: TRPC_ERROR_CODE_KEY;
  /** What a client is told when the error's own message is not ours to show. */
  message: string;
  /** Sent as `Retry-After` (seconds) with the error. */
  retryAfterSeconds?: number;
}

/**
 * Stable, machine-readable error codes: the one table from a code to its HTTP status and its tRPC
 * code, used by both surfaces. Clients branch on these codes, never on messages.
 */
export const errorCodes = {
  BAD_REQUEST: { status: 400, trpc: "BAD_REQUEST", message: "The request is not valid HTTP" },
  VALIDATION_FAILED: { status: 422, trpc: "BAD_REQUEST", message: "Input validation failed" },
  MALFORMED_JSON: {
    status: 422,
    trpc: "PARSE_ERROR",
    message: "The request body is not valid JSON",
  },
  UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    trpc: "UNSUPPORTED_MEDIA_TYPE",
    message: "The request body must be application/json",
  },
  PAYLOAD_TOO_LARGE: {
    status: 413,
    trpc: "PAYLOAD_TOO_LARGE",
    message: "The request body is too large",
  },
  HEADERS_TOO_LARGE: {
    status: 431,
    trpc: "BAD_REQUEST",
    message: "The request line or headers are too large",
  },
  REQUEST_TIMEOUT: {
    status: 408,
    trpc: "TIMEOUT",
    message: "The request was not received in time",
  },
  METHOD_NOT_ALLOWED: {
    status: 405,
    trpc: "METHOD_NOT_SUPPORTED",
    message: "Method not allowed on this path",
  },
  UNAUTHORIZED: { status: 401, trpc: "UNAUTHORIZED", message: "A valid API key is required" },
  FORBIDDEN: { status: 403, trpc: "FORBIDDEN", message: "Not allowed" },
  NOT_FOUND: { status: 404, trpc: "NOT_FOUND", message: "Not found" },
  SANDBOX_NOT_FOUND: { status: 404, trpc: "NOT_FOUND", message: "Sandbox not found" },
  SANDBOX_SPEC_NOT_FOUND: { status: 404, trpc: "NOT_FOUND", message: "Sandbox spec not found" },
  CONVERSATION_NOT_FOUND: { status: 404, trpc: "NOT_FOUND", message: "Conversation not found" },
  USER_NOT_FOUND: { status: 404, trpc: "NOT_FOUND", message: "User not found" },
  WEBHOOK_NOT_FOUND: { status: 404, trpc: "NOT_FOUND", message: "Webhook not found" },
  API_KEY_NOT_FOUND: { status: 404, trpc: "NOT_FOUND", message: "API key not found" },
  CANNOT_MODIFY_SELF: {
    status: 409,
    trpc: "CONFLICT",
    message: "Admins cannot disable or delete themselves",
  },
  UNISOLATED_MULTI_USER: {
    status: 409,
    trpc: "CONFLICT",
    message: "Sandboxes are not isolated here, so this server serves one user only",
  },
  CONVERSATION_EXISTS: {
    status: 409,
    trpc: "CONFLICT",
    message: "A conversation with this id exists already",
  },
  /** The same `Idempotency-Key` came with another request (path or body) within 24 h. */
  IDEMPOTENCY_KEY_REUSED: {
    status: 422,
    trpc: "BAD_REQUEST",
    message: "This Idempotency-Key was used with a different request",
  },
  /** The first request with this `Idempotency-Key` is still running (in another process). */
  IDEMPOTENCY_KEY_IN_PROGRESS: {
    status: 409,
    trpc: "CONFLICT",
    message: "A request with this Idempotency-Key is still in progress; retry shortly",
    retryAfterSeconds: 1,
  },
  LAST_API_KEY: { status: 409, trpc: "CONFLICT", message: "The last API key cannot be revoked" },
  API_KEY_LIMIT_REACHED: { status: 409, trpc: "CONFLICT", message: "Too many API keys" },
  WEBHOOK_LIMIT_REACHED: { status: 409, trpc: "CONFLICT", message: "Too many webhooks" },
  SPEC_NOT_SUPPORTED: {
    status: 422,
    trpc: "BAD_REQUEST",
    message: "The sandbox spec is not supported here",
  },
  INVALID_SANDBOX_STATE: {
    status: 409,
    trpc: "CONFLICT",
    message: "Not possible in the sandbox's current status",
  },
  SANDBOX_NOT_RUNNING: { status: 409, trpc: "CONFLICT", message: "The sandbox is not running" },
  /** The runtime has no `setEgressPolicy`: a sandbox keeps the policy it was started with. */
  EGRESS_POLICY_NOT_LIVE: {
    status: 501,
    trpc: "NOT_IMPLEMENTED",
    message: "This server's runtime cannot change a sandbox's egress policy after its start",
  },
  CONVERSATION_ARCHIVED: {
    status: 410,
    trpc: "PRECONDITION_FAILED",
    message: "The conversation is archived",
  },
  /** A port URL's host carries no token (`p{port}-{id}.…` without `-{token}`). */
  PORT_URL_TOKEN_MISSING: {
    status: 401,
    trpc: "UNAUTHORIZED",
    message: "This port URL carries no token; ask for a signed one",
  },
  /** Not signed by this server's current key for this sandbox and port. */
  PORT_URL_TOKEN_INVALID: {
    status: 403,
    trpc: "FORBIDDEN",
    message: "This port URL's token is not valid",
  },
  PORT_URL_EXPIRED: { status: 403, trpc: "FORBIDDEN", message: "This port URL has expired" },
  /** The agent server's own port: reached through `agent_server_url`, never a port URL. */
  PORT_NOT_ALLOWED: {
    status: 422,
    trpc: "BAD_REQUEST",
    message: "This port cannot be reached through a port URL",
  },
  PORT_NOT_LISTENING: {
    status: 502,
    trpc: "BAD_GATEWAY",
    message: "Nothing answers on this port in the sandbox",
  },
  SANDBOX_UNAVAILABLE: {
    status: 503,
    trpc: "SERVICE_UNAVAILABLE",
    message: "The sandbox is unavailable",
  },
  SANDBOX_START_FAILED: {
    status: 503,
    trpc: "SERVICE_UNAVAILABLE",
    message: "The sandbox could not be started",
  },
  /** Messages to the sandbox's agent server were still in flight past the bound of a pause/delete. */
  SANDBOX_BUSY: {
    status: 503,
    trpc: "SERVICE_UNAVAILABLE",
    message: "Messages to the sandbox are still being delivered; retry shortly",
    retryAfterSeconds: 1,
  },
  SANDBOX_LIMIT_REACHED: {
    status: 429,
    trpc: "TOO_MANY_REQUESTS",
    message: "Sandbox limit reached",
  },
  /** The agent server answered 4xx; its status is passed through (AppError.status). */
  AGENT_SERVER_REJECTED: {
    status: 400,
    trpc: "BAD_REQUEST",
    message: "The agent server rejected the request",
  },
  /** The store stayed locked (by another writer) past its bound: transient, retry. */
  STORE_BUSY: {
    status: 503,
    trpc: "SERVICE_UNAVAILABLE",
    message: "The database is busy; retry shortly",
    retryAfterSeconds: 1,
  },
  /** The store cannot be reached (e.g. its server is down). */
  STORE_UNAVAILABLE: {
    status: 503,
    trpc: "SERVICE_UNAVAILABLE",
    message: "The database is unavailable",
  },
  INTERNAL: { status: 500, trpc: "INTERNAL_SERVER_ERROR", message: "Internal server error" },
} as const satisfies Record<string, ErrorCodeEntry>;

export type ErrorCode = keyof typeof errorCodes;

/** Statuses that are not errors, named (the error statuses live in `errorCodes`). */
export const HttpStatus = {
  OK: 200,
  CREATED: 201,
  /** `GET /` sends a browser to the docs. */
  FOUND: 302,
  /** `/ready` while starting or shutting down. */
  NOT_READY: 503,
} as const;

/** 4xx and 5xx. */
export function isErrorStatus(status: number): boolean {
  return status >= 400;
}

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
    message: string = errorCodes[code].message,
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

import type { OpenApiMeta, OpenApiMethod } from "trpc-to-openapi";
import { z } from "zod";
import { type ErrorCode, errorCodes } from "../errors";

/** The REST side of a procedure's meta (`meta.openapi` and what the REST adapter reads). */
export type Meta = OpenApiMeta<{
  /** HTTP status of a successful REST call (201 for creates); 200 when absent. */
  successStatus?: number;
  /**
   * Query parameters a body method (POST/PUT/PATCH) also takes, beside its JSON body (OpenHands'
   * `POST /sandboxes?sandbox_spec_id=`). Other methods take their whole input from the query.
   */
  bodyQuery?: string[];
}>;

export const API_PREFIX = "/api/v1";

/** Largest request body the server takes unless configured otherwise (1 MiB). */
export const DEFAULT_BODY_LIMIT_BYTES = 1024 * 1024;

/** FastAPI's operationId pattern: `{function}_{path with non-word characters as _}_{method}`. */
export function operationIdFor(fn: string, method: OpenApiMethod, path: string): string {
  const route = `${API_PREFIX}${path}`.replace(/^\//, "").replace(/\W/g, "_");
  return `${fn}_${route}_${method.toLowerCase()}`;
}

interface RestOptions {
  summary: string;
  tag: string;
  /**
   * The error codes the operation answers with, besides the ones every operation has
   * (UNAUTHORIZED when protected, VALIDATION_FAILED, and the body errors of a body method).
   * Documented by their HTTP status (see `errorCodes`).
   */
  errors?: ErrorCode[];
  /** The status of a success (`HttpStatus.CREATED` for creates); 200 when absent. */
  successStatus?: number;
  description?: string;
  protect?: boolean;
  /**
   * Authenticated by a sandbox's own session key (`X-Session-API-Key`) instead of an API key:
   * the document gives the operation that security (implies `protect: false`).
   */
  sessionKey?: boolean;
  /** Query parameters a body method takes too (see `Meta.bodyQuery`); documented as such. */
  bodyQuery?: string[];
  /**
   * The path the operationId is derived from, when OpenHands names a path parameter differently
   * from the path we serve (`/sandboxes/{sandbox_id}/pause` for our `/sandboxes/{id}/pause`), so
   * that ids of clients generated from their document match ours.
   */
  operationIdPath?: `/${string}`;
}

/** Declared as a request header so that the document can state the operation's security. */
const SessionKeyHeader = z.object({ "X-Session-API-Key": z.string() });

const BODY_METHODS: ReadonlySet<OpenApiMethod> = new Set(["POST", "PUT", "PATCH"]);

/** The REST side of a procedure: `meta.openapi` plus our success status. */
export function rest(
  method: OpenApiMethod,
  path: `/${string}`,
  fn: string,
  options: RestOptions,
): Meta {
  const protect = options.sessionKey ? false : (options.protect ?? true);
  const codes: ErrorCode[] = [
    ...(protect ? (["UNAUTHORIZED"] as const) : []),
    "VALIDATION_FAILED",
    ...(BODY_METHODS.has(method) ? (["PAYLOAD_TOO_LARGE", "UNSUPPORTED_MEDIA_TYPE"] as const) : []),
    ...(options.errors ?? []),
  ];
  const statuses = [...new Set(codes.map((code) => errorCodes[code].status))].sort((a, b) => a - b);
  return {
    ...(options.successStatus ? { successStatus: options.successStatus } : {}),
    ...(options.bodyQuery ? { bodyQuery: options.bodyQuery } : {}),
    openapi: {
      method,
      path,
      operationId: operationIdFor(fn, method, options.operationIdPath ?? path),
      summary: options.summary,
      ...(options.description ? { description: options.description } : {}),
      tags: [options.tag],
      protect,
      ...(options.sessionKey ? { requestHeaders: SessionKeyHeader } : {}),
      errorResponses: statuses,
    },
  };
}

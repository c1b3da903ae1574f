import type { OpenApiMethod } from "trpc-to-openapi";
import type { Meta } from "../trpc";

export const API_PREFIX = "/api/v1";

/** FastAPI's operationId pattern: `{function}_{path with non-word characters as _}_{method}`. */
export function operationIdFor(fn: string, method: OpenApiMethod, path: string): string {
  const route = `${API_PREFIX}${path}`.replace(/^\//, "").replace(/\W/g, "_");
  return `${fn}_${route}_${method.toLowerCase()}`;
}

interface RestOptions {
  summary: string;
  tag: string;
  /** Error statuses besides 401 and 422, which every authenticated operation has. */
  errors?: number[];
  successStatus?: number;
  description?: string;
  protect?: boolean;
}

/** The REST side of a procedure: `meta.openapi` plus our success status. */
export function rest(
  method: OpenApiMethod,
  path: `/${string}`,
  fn: string,
  options: RestOptions,
): Meta {
  const protect = options.protect ?? true;
  const errors = [...(protect ? [401] : []), 422, ...(options.errors ?? [])].sort();
  return {
    ...(options.successStatus ? { successStatus: options.successStatus } : {}),
    openapi: {
      method,
      path,
      operationId: operationIdFor(fn, method, path),
      summary: options.summary,
      ...(options.description ? { description: options.description } : {}),
      tags: [options.tag],
      protect,
      errorResponses: errors,
    },
  };
}

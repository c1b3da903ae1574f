import { AppError, appRouter, type Context, type Core } from "@sandbox-server/core";
import type { NextFunction, Request, Response } from "express";
import type { Logger } from "pino";
import { describeAndLog, sendDescribedError, sendErrorCode } from "../error-response";
import { contextFor } from "../request-context";
import {
  ClientGoneError,
  hasBody,
  isJsonContentType,
  parseJsonObject,
  readBody,
} from "./json-body";
import { decodeParams, parseQuery } from "./request-input";
import type { RouteTable } from "./route-table";

const BODY_METHODS = new Set(["POST", "PUT", "PATCH"]);
/** Set on a create answered from its `Idempotency-Key` record (both surfaces). */
export const REPLAYED_HEADER = "idempotent-replayed";

type ProcedureFn = (input: unknown) => Promise<unknown>;

/** The procedure at `path` (e.g. `sandboxes.pause`) on a caller bound to `ctx`. */
function procedureOf(ctx: Context, path: string): ProcedureFn {
  let node: unknown = appRouter.createCaller(ctx);
  for (const key of path.split(".")) node = (node as Record<string, unknown>)[key];
  return node as ProcedureFn;
}

interface RequestBody {
  bytes: Buffer;
  value: Record<string, unknown>;
}

/**
 * The JSON body, read and parsed once. A body method's body must be JSON (415 otherwise); without a
 * body (`/pause`) it needs no content type. Other methods ignore a body, but a JSON one must parse.
 */
async function bodyOf(req: Request, limit: number): Promise<RequestBody | undefined> {
  if (!hasBody(req)) return undefined;
  const takesBody = BODY_METHODS.has(req.method);
  if (!isJsonContentType(req.headers["content-type"])) {
    if (takesBody) throw new AppError("UNSUPPORTED_MEDIA_TYPE");
    return undefined;
  }
  const bytes = await readBody(req, limit);
  if (bytes.length === 0) return undefined;
  const value = parseJsonObject(bytes);
  return takesBody ? { bytes, value } : undefined;
}

/**
 * The query parameters a body method declares (`bodyQuery`), and only those: a body procedure never
 * sees other query keys (send-message validates exactly the body it forwards). A parameter given
 * both in the query and in the body with different values is refused.
 */
function bodyQueryOf(
  names: string[] | undefined,
  search: Record<string, string | string[]>,
  body: Record<string, unknown> | undefined,
): Record<string, string | string[]> {
  const picked: Record<string, string | string[]> = {};
  for (const name of names ?? []) {
    const value = search[name];
    if (value === undefined) continue;
    const inBody = body?.[name];
    if (inBody !== undefined && inBody !== null && inBody !== value) {
      throw new AppError("VALIDATION_FAILED", `${name} differs between the query and the body`, {
        issues: [{ path: [name], message: "differs between the query and the body" }],
      });
    }
    picked[name] = value;
  }
  return picked;
}

export interface RestHandlerOptions {
  core: Core;
  log: Logger;
  routes: RouteTable;
  bodyLimitBytes: number;
}

/**
 * The REST surface: every procedure at the path its `meta.openapi` declares, called through a
 * tRPC caller (same middleware, input and output schemas as over /trpc). Path parameters are
 * decoded, query values stay strings (arrays when repeated), the JSON body is parsed once and its
 * original bytes reach the procedure as `ctx.rawBody`. The input is the body (or the query) plus
 * the path parameters, validated once, by the procedure's own input schema.
 */
export function restHandler(options: RestHandlerOptions) {
  const { core, log, routes, bodyLimitBytes } = options;
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const url = req.url;
    const query = url.indexOf("?");
    const path = query < 0 ? url : url.slice(0, query);
    const match = routes.match(req.method, path);
    if (match.kind === "none") {
      next();
      return;
    }
    if (match.kind === "wrong-method") {
      res.setHeader("allow", match.allowed.join(", "));
      sendErrorCode(res, "METHOD_NOT_ALLOWED");
      return;
    }
    const { route } = match;
    try {
      const params = decodeParams(match.params);
      const body = await bodyOf(req, bodyLimitBytes);
      const search = parseQuery(query < 0 ? "" : url.slice(query + 1));
      const input = BODY_METHODS.has(route.method)
        ? { ...body?.value, ...bodyQueryOf(route.bodyQuery, search, body?.value), ...params }
        : { ...search, ...params };
      const ctx = await contextFor(core, req, body?.bytes);
      const output = await procedureOf(ctx, route.procedure)(input);
      if (ctx.idempotency.replayed) res.setHeader(REPLAYED_HEADER, "true");
      res.status(route.successStatus).json(output);
    } catch (error) {
      if (error instanceof ClientGoneError || res.headersSent) return;
      const fields = { requestId: req.id, procedure: route.procedure };
      sendDescribedError(res, describeAndLog(log, error, fields));
    }
  };
}

import { AppError, appRouter, type Context, type Core } from "@sandbox-server/core";
import type { AnyTRPCProcedure } from "@trpc/server";
import type { Logger } from "pino";
import { answerBeforeBody } from "../early-answer";
import { describeAndLog, sendDescribedError, sendErrorCode } from "../error-response";
import type { HttpMiddleware, HttpRequest, HttpResponse } from "../http-types";
import { contextFor } from "../request-context";
import { requestIdOf } from "../request-log";
import { sendJson } from "../send-json";
import {
  ClientGoneError,
  hasBody,
  isJsonContentType,
  parseJsonObject,
  readBody,
} from "./json-body";
import { decodeParams, parseQuery } from "./request-input";
import type { FoundRoute, RouteMatch, RouteTable } from "./route-table";

const BODY_METHODS = new Set(["POST", "PUT", "PATCH"]);
/** Set on a create answered from its `Idempotency-Key` record (both surfaces). */
export const REPLAYED_HEADER = "idempotent-replayed";

type ProcedureFn = (ctx: Context, input: unknown) => Promise<unknown>;

/**
 * The procedure at `path` (e.g. `sandboxes.pause`), looked up once: what `createCaller(ctx)` does
 * per call (a proxy per context, a path walk per call), without the proxy. Same call, same
 * middleware chain, same input and output schemas, same errors.
 */
function procedureOf(path: string): ProcedureFn {
  // A flat record of every procedure by its dotted path (what tRPC's own caller looks up).
  const procedures = appRouter._def.procedures as unknown as Record<string, AnyTRPCProcedure>;
  const procedure = procedures[path];
  if (!procedure) throw new Error(`REST route for a missing procedure: ${path}`);
  const type = procedure._def.type;
  return (ctx, input) =>
    procedure({
      path,
      ctx,
      type,
      getRawInput: async () => input,
      signal: undefined,
      batchIndex: 0,
    });
}

interface RequestBody {
  bytes: Buffer;
  value: Record<string, unknown>;
}

/**
 * The JSON body, read and parsed once. A body method's body must be JSON (415 otherwise); without a
 * body (`/pause`) it needs no content type. Other methods ignore a body, but a JSON one must parse.
 */
async function bodyOf(req: HttpRequest, limit: number): Promise<RequestBody | undefined> {
  if (!hasBody(req)) return undefined;
  const takesBody = BODY_METHODS.has(req.method ?? "");
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
  /** How long the body of a request refused on its headers (401) is still read and dropped. */
  refusedBodyLingerMs: number;
}

export interface RestHandler {
  /**
   * Serves a call whose path (below `/api/v1`) the route table matched: the operation, or 405
   * with `Allow` when the path exists for other methods. `search` is the query string without `?`.
   */
  serve(req: HttpRequest, res: HttpResponse, match: FoundOrWrongMethod, search: string): void;
  /** The same as express middleware mounted at `/api/v1` (unmatched paths go to `next`). */
  middleware: HttpMiddleware;
}

type FoundOrWrongMethod = Exclude<RouteMatch, { kind: "none" }>;

/**
 * The REST surface: every procedure at the path its `meta.openapi` declares, called like a tRPC
 * caller calls it (same middleware, input and output schemas as over /trpc). Path parameters are
 * decoded, query values stay strings (arrays when repeated), the JSON body is parsed once and its
 * original bytes reach the procedure as `ctx.rawBody`. The input is the body (or the query) plus
 * the path parameters, validated once, by the procedure's own input schema.
 */
export function restHandler(options: RestHandlerOptions): RestHandler {
  const { core, log, routes, bodyLimitBytes, refusedBodyLingerMs } = options;
  const procedures = new Map<string, ProcedureFn>();
  for (const route of routes.all()) procedures.set(route.procedure, procedureOf(route.procedure));

  async function call(req: HttpRequest, res: HttpResponse, match: FoundRoute, search: string) {
    const { route } = match;
    try {
      // Credentials come before the body: a stranger's body is never waited for (nor read).
      const early = route.protect ? await contextFor(core, req, res) : undefined;
      if (early && !early.user) {
        answerBeforeBody(req, res, "UNAUTHORIZED", refusedBodyLingerMs);
        return;
      }
      const params = decodeParams(match.params);
      const body = await bodyOf(req, bodyLimitBytes);
      const query = parseQuery(search);
      const input = BODY_METHODS.has(route.method)
        ? { ...body?.value, ...bodyQueryOf(route.bodyQuery, query, body?.value), ...params }
        : { ...query, ...params };
      const ctx = early ?? (await contextFor(core, req, res));
      ctx.rawBody = body?.bytes;
      const procedure = procedures.get(route.procedure) as ProcedureFn;
      const output = await procedure(ctx, input);
      if (ctx.idempotency.replayed) res.setHeader(REPLAYED_HEADER, "true");
      sendJson(res, route.successStatus, output);
    } catch (error) {
      if (error instanceof ClientGoneError || res.headersSent) return;
      const fields = () => ({ requestId: requestIdOf(req, res), procedure: route.procedure });
      sendDescribedError(res, describeAndLog(log, error, fields));
    }
  }

  const serve: RestHandler["serve"] = (req, res, match, search) => {
    if (match.kind === "wrong-method") {
      res.setHeader("allow", match.allowed.join(", "));
      sendErrorCode(res, "METHOD_NOT_ALLOWED");
      return;
    }
    void call(req, res, match, search);
  };

  return {
    serve,
    middleware(req, res, next) {
      const url = req.url ?? "/";
      const query = url.indexOf("?");
      const match = routes.match(req.method ?? "", query < 0 ? url : url.slice(0, query));
      if (match.kind === "none") {
        next();
        return;
      }
      serve(req, res, match, query < 0 ? "" : url.slice(query + 1));
    },
  };
}

import {
  appRouter,
  type Context,
  type Core,
  describeError,
  procedureMetas,
} from "@sandbox-server/core";
import type { TRPCError } from "@trpc/server";
import { createExpressMiddleware } from "@trpc/server/adapters/express";
import type express from "express";
import type { Logger } from "pino";
import { closeAfterAnswer } from "./early-answer";
import { describeAndLog } from "./error-response";
import { contextFor } from "./request-context";
import { requestIdOf } from "./request-log";
import { hasBody } from "./rest/json-body";
import { REPLAYED_HEADER } from "./rest/rest-handler";

/**
 * The tRPC surface. Statuses come from the same error table as REST (`data.httpStatus` is the
 * response status, e.g. 410); successes are 200 (JSON-RPC style).
 */
export function trpcHandler(options: {
  core: Core;
  log: Logger;
  bodyLimitBytes: number;
  refusedBodyLingerMs: number;
}): express.RequestHandler {
  const { core, log } = options;
  const trpc = createExpressMiddleware({
    router: appRouter,
    createContext: ({ req, res }) => contextFor(core, req, res),
    maxBodySize: options.bodyLimitBytes,
    responseMeta: ({ ctx, errors }: { ctx?: Context; errors: TRPCError[] }) => {
      const [error] = errors;
      if (!error) {
        return ctx?.idempotency.replayed ? { headers: { [REPLAYED_HEADER]: "true" } } : {};
      }
      const described = describeError(error);
      const retryAfter = described.retryAfterSeconds;
      return {
        status: described.status,
        ...(retryAfter ? { headers: { "retry-after": String(retryAfter) } } : {}),
      };
    },
    onError: ({ error, path, req }) => {
      describeAndLog(log, error, () => ({ requestId: requestIdOf(req), procedure: path }));
    },
  });
  const needsKey = protectedProcedures();
  // Credentials come before the body, as on REST: a call of procedures that all need an API key,
  // sent without a valid one, is handed to tRPC with an empty body (never read from the socket),
  // which answers its 401 in tRPC's own shape; then the connection closes.
  return (req, res, next) => {
    if (!hasBody(req) || req.complete) {
      trpc(req, res, next);
      return;
    }
    const names = procedureNames(req.url ?? "/");
    if (names.length === 0 || !names.every((name) => needsKey.has(name))) {
      trpc(req, res, next);
      return;
    }
    contextFor(core, req, res).then(
      (ctx) => {
        if (!ctx.user) {
          req.body = "";
          closeAfterAnswer(req, res, options.refusedBodyLingerMs);
        }
        trpc(req, res, next);
      },
      () => trpc(req, res, next),
    );
  };
}

/** Procedures that need an API key (`meta.openapi.protect`, true unless a route says otherwise). */
function protectedProcedures(): Set<string> {
  const names = new Set<string>();
  for (const [name, meta] of procedureMetas()) {
    if (meta.openapi && meta.openapi.protect !== false) names.add(name);
  }
  return names;
}

/** The procedures a /trpc URL (below the mount) calls: `/a.b` or, batched, `/a.b,c.d?batch=1`. */
function procedureNames(url: string): string[] {
  const query = url.indexOf("?");
  const path = (query < 0 ? url : url.slice(0, query)).replace(/^\/+/, "");
  return path === "" ? [] : path.split(",").map((name) => decodeURIComponent(name));
}

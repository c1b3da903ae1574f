import {
  apiKeyFromHeaders,
  appRouter,
  type Core,
  createContextInner,
  createOpenApiDocument,
  describeError,
  type Meta,
  pinBodySchemas,
  procedureMetas,
} from "@sandbox-server/core";
import type { TRPCError } from "@trpc/server";
import { createExpressMiddleware } from "@trpc/server/adapters/express";
import express, { type NextFunction, type Request, type Response } from "express";
import type { Logger } from "pino";
import swaggerUi from "swagger-ui-express";
import { createOpenApiExpressMiddleware } from "trpc-to-openapi";
import { requireJsonObject } from "./json-body";
import { requestLog } from "./request-log";
import { bodyErrorHandler, finalErrorHandler, reshapeRestErrors } from "./rest-errors";
import { sendMessageRoute } from "./send-message-route";

export interface AppOptions {
  core: Core;
  log: Logger;
  /** Largest accepted request body. */
  bodyLimitBytes: number;
  /** Whether /ready answers 200 (false while starting and shutting down). */
  isReady: () => boolean;
}

const BODY_METHODS = new Set(["POST", "PUT", "PATCH"]);

function contextFor(core: Core, req: Request) {
  return createContextInner({
    deps: core.deps,
    apiKey: apiKeyFromHeaders(req.headers),
    requestId: req.id,
    rawBody: req.rawBody,
  });
}

/** Both surfaces map errors to statuses through `describeError`; REST creates answer 201. */
function statusFor(metas: Map<string, Meta>, rest: boolean) {
  return ({ errors, paths }: { errors: TRPCError[]; paths?: readonly string[] | undefined }) => {
    const [error] = errors;
    if (error) return { status: describeError(error).status };
    const meta = paths?.length === 1 && paths[0] ? metas.get(paths[0]) : undefined;
    return rest && meta?.successStatus ? { status: meta.successStatus } : {};
  };
}

export function createApp(options: AppOptions): express.Express {
  const { core, log } = options;
  const metas = procedureMetas();
  pinBodySchemas();
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  app.use(requestLog(log));

  app.get(["/health", "/alive"], (_req, res) => {
    res.json({ status: "ok" });
  });
  app.get("/ready", (_req, res) => {
    const ready = options.isReady();
    res.status(ready ? 200 : 503).json({ status: ready ? "ready" : "starting" });
  });

  const openApiDocument = createOpenApiDocument("");
  app.get("/api/v1/openapi.json", (_req, res) => {
    res.json(openApiDocument);
  });
  app.use(
    "/docs",
    swaggerUi.serve,
    swaggerUi.setup(openApiDocument, { customSiteTitle: "Sandbox Server API" }),
  );

  app.use(
    "/trpc",
    createExpressMiddleware({
      router: appRouter,
      createContext: ({ req }) => contextFor(core, req),
      responseMeta: statusFor(metas, false),
      maxBodySize: options.bodyLimitBytes,
      onError: ({ error, path }) => logInternal(log, error, path),
    }),
  );

  app.use(
    "/api/v1",
    (req: Request, _res: Response, next: NextFunction) => {
      // A bodiless POST (e.g. /pause) needs no content type; trpc-to-openapi would say 415.
      const empty =
        !req.headers["transfer-encoding"] && Number(req.headers["content-length"] ?? 0) === 0;
      if (BODY_METHODS.has(req.method) && empty) req.headers["content-type"] = "application/json";
      next();
    },
    express.json({
      limit: options.bodyLimitBytes,
      strict: false,
      verify: (req, _res, buf) => {
        (req as Request).rawBody = buf;
      },
    }),
    bodyErrorHandler,
    requireJsonObject,
  );
  app.post(
    expressPath(metas, "conversations.sendMessage"),
    sendMessageRoute(
      (req) => contextFor(core, req),
      (error) => logInternal(log, error, "conversations.sendMessage"),
    ),
  );
  app.use(
    "/api/v1",
    reshapeRestErrors,
    createOpenApiExpressMiddleware({
      router: appRouter,
      createContext: ({ req }) => contextFor(core, req as Request),
      responseMeta: statusFor(metas, true),
      maxBodySize: options.bodyLimitBytes,
      onError: ({ error, path }) => logInternal(log, error, path),
    }),
  );

  app.use((_req, res) => {
    res.status(404).json({ code: "NOT_FOUND", message: "Not found" });
  });
  app.use(finalErrorHandler(log));
  return app;
}

/** A procedure's REST path as an express route: `/api/v1/a/{id}` → `/api/v1/a/:id`. */
function expressPath(metas: Map<string, Meta>, procedure: string): string {
  const path = metas.get(procedure)?.openapi?.path;
  if (!path) throw new Error(`${procedure} has no REST path`);
  return `/api/v1${path.replace(/\{(\w+)\}/g, ":$1")}`;
}

function logInternal(log: Logger, error: TRPCError, path: string | undefined): void {
  if (describeError(error).status >= 500 && error.code === "INTERNAL_SERVER_ERROR") {
    log.error({ err: error.cause ?? error, path }, "internal error");
  }
}

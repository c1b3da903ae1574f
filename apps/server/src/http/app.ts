import type { RequestListener } from "node:http";
import { type Core, createOpenApiDocument, HttpStatus } from "@sandbox-server/core";
import express from "express";
import type { Logger } from "pino";
import swaggerUi from "swagger-ui-express";
import { API_PREFIX, httpMetrics } from "../metrics/http-metrics";
import { metricsRoute } from "../metrics/metrics-route";
import type { ServerMetrics } from "../metrics/registry";
import { bodyGuards } from "./body-guards";
import { finalErrorHandler, sendErrorCode } from "./error-response";
import type { HttpMiddleware, HttpRequest } from "./http-types";
import { requestLog } from "./request-log";
import { restHandler } from "./rest/rest-handler";
import { restRouteTable } from "./rest/rest-routes";
import { DEFAULT_HTTP_TIMEOUTS, type HttpTimeouts } from "./server-options";
import { StalledBodies } from "./stalled-bodies";
import { trpcHandler } from "./trpc-handler";

export interface AppOptions {
  core: Core;
  log: Logger;
  /** Largest accepted request body. */
  bodyLimitBytes: number;
  /** Whether /ready answers 200 (false while starting and shutting down). */
  isReady: () => boolean;
  /** Prometheus metrics: requests are timed and GET /metrics serves them. */
  metrics?: ServerMetrics;
  metricsToken?: string | undefined;
  /** Body timeouts (see HttpTimeouts); defaults: DEFAULT_HTTP_TIMEOUTS. */
  timeouts?: Partial<Pick<HttpTimeouts, "bodyIdleTimeoutMs" | "refusedBodyLingerMs">>;
}

/** The request listener, and what it keeps running besides requests. */
export interface App {
  listener: RequestListener;
  /** Stops the sweep of stalled bodies. */
  close(): void;
}

/**
 * The server's request listener. A REST call whose path the route table knows goes straight to
 * the REST handler, after the same middleware express would run first (request id and access log,
 * metrics, body guards); everything else — health, docs, /trpc, the OpenAPI document, unknown
 * paths — is express's. Both reach the same handler: express mounts it at /api/v1 as well (paths
 * the front does not take, such as a differently cased prefix, behave as they always did).
 * Express's router walk and response helpers were about a tenth of send-message's CPU.
 */
export function createApp(options: AppOptions): App {
  const { core, log, bodyLimitBytes } = options;
  const timeouts = { ...DEFAULT_HTTP_TIMEOUTS, ...options.timeouts };
  const routes = restRouteTable();
  const logRequest = requestLog(log);
  const timer = options.metrics ? httpMetrics(options.metrics, routes) : null;
  const guardBody = bodyGuards(bodyLimitBytes);
  const stalled = new StalledBodies(timeouts.bodyIdleTimeoutMs);
  const rest = restHandler({
    core,
    log,
    routes,
    bodyLimitBytes,
    refusedBodyLingerMs: timeouts.refusedBodyLingerMs,
  });
  const app = expressApp(options, rest.middleware, [
    logRequest,
    ...(timer ? [timer.middleware] : []),
    guardBody,
  ]);
  const prefix = `${API_PREFIX}/`;
  const listener: RequestListener = (message, res) => {
    const req = message as HttpRequest;
    stalled.watch(req, res);
    const url = req.url ?? "/";
    if (url.startsWith(prefix)) {
      const query = url.indexOf("?");
      const path = (query < 0 ? url : url.slice(0, query)).slice(API_PREFIX.length);
      const match = routes.match(req.method ?? "", path);
      if (match.kind !== "none") {
        const search = query < 0 ? "" : url.slice(query + 1);
        logRequest(req, res, noop);
        timer?.time(
          req,
          res,
          match.kind === "found" ? `${API_PREFIX}${match.route.path}` : "unmatched",
        );
        guardBody(req, res, () => rest.serve(req, res, match, search));
        return;
      }
    }
    app(req, res);
  };
  return { listener, close: () => stalled.close() };
}

const noop = () => undefined;

function expressApp(
  options: AppOptions,
  rest: HttpMiddleware,
  first: HttpMiddleware[],
): express.Express {
  const { core, log, bodyLimitBytes } = options;
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  for (const middleware of first) app.use(middleware);

  // Which runtime runs sandboxes and how it isolates them: a client can refuse to use a server
  // whose sandboxes are not isolated.
  // `network` (when the runtime says): `own` namespaces with the egress policy enforced, or `shared`.
  const { kind: runtime, isolation, network } = core.deps.runtime;
  app.get(["/health", "/alive"], (_req, res) => {
    res.json({ status: "ok", runtime, isolation, ...(network ? { network } : {}) });
  });
  // A person who opens the server's address in a browser lands on the API docs.
  app.get("/", (_req, res) => {
    res.redirect(HttpStatus.FOUND, "/docs/");
  });
  app.get("/ready", (_req, res) => {
    const ready = options.isReady();
    res
      .status(ready ? HttpStatus.OK : HttpStatus.NOT_READY)
      .json({ status: ready ? "ready" : "starting" });
  });

  if (options.metrics) {
    const metrics = options.metrics;
    app.get("/metrics", metricsRoute({ core, metrics, metricsToken: options.metricsToken }));
  }

  // Made by the first request that needs it: most servers never serve their docs, and building
  // the document walks every procedure's schemas (and leaves its copy in the docs page's script).
  let openApiDocument: ReturnType<typeof createOpenApiDocument> | null = null;
  const document = () => {
    openApiDocument ??= createOpenApiDocument("", { bodyLimitBytes });
    return openApiDocument;
  };
  app.get("/api/v1/openapi.json", (_req, res) => {
    res.json(document());
  });
  let docsPage: express.RequestHandler | null = null;
  app.use(
    "/docs",
    swaggerUi.serve,
    (req: express.Request, res: express.Response, next: express.NextFunction) => {
      docsPage ??= swaggerUi.setup(document(), { customSiteTitle: "Sandbox Server API" });
      docsPage(req, res, next);
    },
  );

  const refusedBodyLingerMs = { ...DEFAULT_HTTP_TIMEOUTS, ...options.timeouts }.refusedBodyLingerMs;
  app.use("/trpc", trpcHandler({ core, log, bodyLimitBytes, refusedBodyLingerMs }));
  app.use(API_PREFIX, rest);

  app.use((_req, res) => {
    sendErrorCode(res, "NOT_FOUND");
  });
  app.use(finalErrorHandler(log));
  return app;
}

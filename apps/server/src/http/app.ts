import { type Core, createOpenApiDocument, HttpStatus } from "@sandbox-server/core";
import express from "express";
import type { Logger } from "pino";
import swaggerUi from "swagger-ui-express";
import { httpMetrics } from "../metrics/http-metrics";
import { metricsRoute } from "../metrics/metrics-route";
import type { ServerMetrics } from "../metrics/registry";
import { bodyGuards } from "./body-guards";
import { finalErrorHandler, sendErrorCode } from "./error-response";
import { requestLog } from "./request-log";
import { restHandler } from "./rest/rest-handler";
import { restRouteTable } from "./rest/rest-routes";
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
}

export function createApp(options: AppOptions): express.Express {
  const { core, log, bodyLimitBytes } = options;
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  const routes = restRouteTable();
  app.use(requestLog(log));
  if (options.metrics) app.use(httpMetrics(options.metrics, routes));
  app.use(bodyGuards(bodyLimitBytes));

  // Which runtime runs sandboxes and how it isolates them: a client can refuse to use a server
  // whose sandboxes are not isolated.
  const { kind: runtime, isolation } = core.deps.runtime;
  app.get(["/health", "/alive"], (_req, res) => {
    res.json({ status: "ok", runtime, isolation });
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

  const openApiDocument = createOpenApiDocument("", { bodyLimitBytes });
  app.get("/api/v1/openapi.json", (_req, res) => {
    res.json(openApiDocument);
  });
  app.use(
    "/docs",
    swaggerUi.serve,
    swaggerUi.setup(openApiDocument, { customSiteTitle: "Sandbox Server API" }),
  );

  app.use("/trpc", trpcHandler({ core, log, bodyLimitBytes }));
  app.use("/api/v1", restHandler({ core, log, routes, bodyLimitBytes }));

  app.use((_req, res) => {
    sendErrorCode(res, "NOT_FOUND");
  });
  app.use(finalErrorHandler(log));
  return app;
}

import express, { type Express } from "express";
import { bashRoutes } from "./bash/routes";
import type { AgentServerContext } from "./context";
import { conversationRoutes } from "./conversations/routes";
import { eventRoutes } from "./events/routes";
import { fileRoutes } from "./files/routes";
import { healthRoutes } from "./health/routes";
import { requireSessionKey } from "./http/auth";
import { createErrorHandler, handleUnknownRoute } from "./http/errors";
import { logRequests } from "./http/request-log";

/** Messages may carry images as data URLs. */
const JSON_BODY_LIMIT = "25mb";

/** Composes the HTTP routes; no logic of its own. */
export function createApp(ctx: AgentServerContext): Express {
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  app.use(logRequests(ctx.logger));
  app.use(healthRoutes(ctx));
  app.use("/api", requireSessionKey(ctx.keys), (_req, _res, next) => {
    // Probes do not count as activity: only API calls (and socket traffic) keep a sandbox busy.
    ctx.lastActivityAt = Date.now();
    next();
  });
  app.use(express.json({ limit: JSON_BODY_LIMIT, strict: false }));
  app.use("/api/conversations/:conversation_id/events", eventRoutes(ctx));
  app.use("/api/conversations", conversationRoutes(ctx));
  app.use("/api/bash", bashRoutes(ctx));
  app.use("/api/file", fileRoutes());
  app.use(handleUnknownRoute);
  app.use(createErrorHandler(ctx.logger));
  return app;
}

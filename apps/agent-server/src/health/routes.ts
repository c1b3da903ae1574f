import { Router } from "express";
import type { AgentServerContext } from "../context";

/** Unauthenticated probes: `/alive`, `/health`, `/ready`, `/server_info`, `/`. */
export function healthRoutes(ctx: AgentServerContext): Router {
  const router = Router();
  const ok = { status: "ok" };

  router.get("/alive", (_req, res) => {
    res.json(ok);
  });
  router.get("/health", (_req, res) => {
    res.json(ok);
  });
  router.get("/ready", (_req, res) => {
    if (ctx.ready) res.json({ status: "ready" });
    else res.status(503).json({ status: "starting" });
  });
  router.get("/server_info", (_req, res) => {
    res.json(describeServer(ctx));
  });
  router.get("/", (_req, res) => {
    res.json({ title: TITLE, version: ctx.version, docs: null });
  });
  return router;
}

const TITLE = "Sandbox Server agent server";

export function describeServer(ctx: AgentServerContext) {
  const now = Date.now();
  // A running agent is activity even when nobody is calling: the sandbox must not look idle.
  const idleSince = ctx.runner.runningCount > 0 ? now : ctx.lastActivityAt;
  return {
    uptime: (now - ctx.startedAt) / 1000,
    idle_time: Math.max(0, now - idleSince) / 1000,
    title: TITLE,
    version: ctx.version,
    docs: null,
    conversations: ctx.store.all().length,
    running_conversations: ctx.runner.runningCount,
    working_dir: ctx.workspaceDir,
  };
}

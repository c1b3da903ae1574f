import type { ServerResponse } from "node:http";
import type { ServerState } from "../context";
import { sendJson } from "../http/respond";

/** What the probes report of the API; zero before it is loaded. */
export interface Workload {
  conversations: number;
  runningConversations: number;
}

const TITLE = "Sandbox Server agent server";

/**
 * Unauthenticated probes: `/alive`, `/health`, `/ready`, `/server_info`, `/`. Answered without the
 * API (no zod, no agents), so they cost nothing while a sandbox waits for its first call.
 * Returns false when `path` is not a probe.
 */
export function answerProbe(
  state: ServerState,
  workload: () => Workload,
  path: string,
  res: ServerResponse,
): boolean {
  switch (path) {
    case "/alive":
    case "/health":
      sendJson(res, { status: "ok" });
      return true;
    case "/ready":
      if (state.ready) sendJson(res, { status: "ready" });
      else sendJson(res, { status: "starting" }, 503);
      return true;
    case "/server_info":
      sendJson(res, describeServer(state, workload()));
      return true;
    case "/":
      sendJson(res, { title: TITLE, version: state.version, docs: null });
      return true;
    default:
      return false;
  }
}

export function describeServer(state: ServerState, workload: Workload) {
  const now = Date.now();
  // A running agent is activity even when nobody is calling: the sandbox must not look idle.
  const idleSince = workload.runningConversations > 0 ? now : state.lastActivityAt;
  return {
    uptime: (now - state.startedAt) / 1000,
    idle_time: Math.max(0, now - idleSince) / 1000,
    title: TITLE,
    version: state.version,
    docs: null,
    conversations: workload.conversations,
    running_conversations: workload.runningConversations,
    working_dir: state.workspaceDir,
  };
}

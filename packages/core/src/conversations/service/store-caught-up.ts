import type { SandboxRow } from "@sandbox-server/db";
import { timestampMicros } from "../../shared/timestamps";
import type { AgentProbeDeps } from "./discover-conversation";

interface NewestEvent {
  id: string;
  timestamp: string;
}

/**
 * Whether the control plane has stored the newest event the agent server holds for this
 * conversation. A wait that answers with a state must not answer before the events that led to it
 * are readable here: the follower stores them a moment after the agent server has them. Unknown
 * (the agent server did not answer) counts as caught up, so a slow agent server cannot hold a
 * wait past what the status alone would.
 */
export async function storeCaughtUp(
  deps: AgentProbeDeps,
  sandbox: Pick<SandboxRow, "agentServerUrl" | "sessionApiKey">,
  conversationId: string,
): Promise<boolean> {
  if (!sandbox.agentServerUrl) return true;
  let newest: NewestEvent | undefined;
  try {
    const response = await deps.agents.request(sandbox.agentServerUrl, sandbox.sessionApiKey, {
      method: "GET",
      path: `/api/conversations/${conversationId}/events/search?sort_order=TIMESTAMP_DESC&limit=1`,
      timeoutMs: deps.config.statusProbeTimeoutMs,
    });
    if (response.status !== 200) return true;
    newest = (response.body as { items?: NewestEvent[] } | null)?.items?.[0];
  } catch {
    return true;
  }
  if (!newest) return true;
  const fromUs = timestampMicros(newest.timestamp);
  if (fromUs === undefined) return true;
  const stored = await deps.repos.conversationEvents.search({ conversationId, fromUs }, "asc", {
    limit: 100,
  });
  return stored.items.some((row) => row.id === newest.id) || stored.nextPageId !== null;
}

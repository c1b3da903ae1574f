import { ConversationInfo } from "@sandbox-server/agent-contracts";
import type { ConversationRow, SandboxRow } from "@sandbox-server/db";
import type { CoreConfig, CoreDeps } from "../../deps";

/** What asking a conversation's agent server uses. */
export type AgentProbeDeps = Pick<CoreDeps, "agents" | "repos"> & {
  config: Pick<CoreConfig, "statusProbeTimeoutMs">;
};

/** What reading conversations uses (one the store does not know yet is discovered and stored). */
export type ConversationReadDeps = AgentProbeDeps &
  Pick<CoreDeps, "events" | "log" | "now" | "transaction">;

/** Reading and waiting for a conversation's state (over a shared store by polling). */
export type ConversationWaitDeps = ConversationReadDeps & Pick<CoreDeps, "sharedStore">;

/** At most this many of the caller's RUNNING sandboxes are asked about one unknown id. */
const MAX_SANDBOXES_ASKED = 50;

/** The conversation as the sandbox's agent server holds it; null when it does not (or is down). */
export async function askAgentServer(
  deps: Pick<CoreDeps, "agents"> & { config: Pick<CoreConfig, "statusProbeTimeoutMs"> },
  sandbox: SandboxRow,
  id: string,
): Promise<ConversationInfo | null> {
  if (!sandbox.agentServerUrl) return null;
  try {
    const response = await deps.agents.request(sandbox.agentServerUrl, sandbox.sessionApiKey, {
      method: "GET",
      path: `/api/conversations/${id}`,
      timeoutMs: deps.config.statusProbeTimeoutMs,
    });
    if (response.status !== 200) return null;
    const info = ConversationInfo.safeParse(response.body);
    return info.success && info.data.id.toLowerCase() === id ? info.data : null;
  } catch {
    return null;
  }
}

/**
 * A conversation the store does not know, found on one of the caller's RUNNING agent servers and
 * registered there and then (owner: the sandbox's owner, the caller). OpenHands' SDK and the
 * CLI's ACP agent create conversations straight on the agent server and later read them back by
 * id (upstream learns of them through the agent server's webhook). The registered conversation
 * is followed like any other, so its events reach the store and webhooks from then on.
 */
export async function discoverConversation(
  deps: ConversationReadDeps,
  ownerId: string,
  id: string,
): Promise<ConversationRow | undefined> {
  const { items: running } = await deps.repos.sandboxes.search(
    { ownerId, status: "RUNNING" },
    { limit: MAX_SANDBOXES_ASKED },
  );
  if (running.length === 0) return undefined;
  const answers = await Promise.all(
    running.map(async (sandbox) => ({ sandbox, info: await askAgentServer(deps, sandbox, id) })),
  );
  const found = answers.find((answer) => answer.info !== null);
  if (!found?.info) return undefined;
  const { sandbox, info } = found;
  const now = deps.now();
  const createdAt = Date.parse(info.created_at);
  const row = await deps.transaction(async (tx) => {
    // Registered meanwhile (by a concurrent read, or a create under this id): that one stands.
    if (await tx.conversations.get(id)) return undefined;
    return tx.conversations.insert({
      id,
      sandboxId: sandbox.id,
      ownerId,
      title: info.title,
      agent: info.agent,
      metadata: {},
      archived: false,
      executionStatus: info.execution_status,
      lastEventAt: null,
      createdAt: Number.isNaN(createdAt) ? now : Math.min(createdAt, now),
      updatedAt: now,
    });
  });
  if (!row) return deps.repos.conversations.get(id);
  deps.log.info({ conversationId: id, sandboxId: sandbox.id }, "conversation discovered");
  deps.events.emit("conversation.created", row);
  return row;
}

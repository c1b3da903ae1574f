import { agentErrorDetail } from "../../agent-client";
import type { CoreDeps } from "../../deps";
import { AppError } from "../../errors";
import type { AppSendMessageResponse } from "../contracts";
import { findOwnedConversation } from "./find-conversation";

const NOT_RUNNING = new Set(["PAUSED", "STARTING", "STOPPING"]);

/**
 * The thin proxy (specification §4): checks where the conversation's sandbox stands, then
 * forwards the caller's body, byte for byte, to the agent server. No defaults, no rewriting,
 * no database writes.
 */
export async function sendMessage(
  deps: CoreDeps,
  ownerId: string,
  conversationId: string,
  body: string | Buffer,
): Promise<AppSendMessageResponse> {
  const conversation = await findOwnedConversation(deps, ownerId, conversationId);
  if (conversation.archived) {
    throw new AppError(
      "CONVERSATION_ARCHIVED",
      `Conversation ${conversationId} is archived: its sandbox no longer exists`,
    );
  }
  const sandbox = await deps.repos.sandboxes.get(conversation.sandboxId);
  if (!sandbox) {
    throw new AppError("SANDBOX_NOT_FOUND", `Sandbox ${conversation.sandboxId} was not found`);
  }
  if (NOT_RUNNING.has(sandbox.status)) {
    throw new AppError(
      "SANDBOX_NOT_RUNNING",
      `Sandbox ${sandbox.id} is ${sandbox.status}; it must be RUNNING. ` +
        (sandbox.status === "PAUSED"
          ? `Resume it with POST /api/v1/sandboxes/${sandbox.id}/resume first.`
          : `Wait until it is RUNNING (POST /api/v1/sandboxes/${sandbox.id}/resume if it is paused).`),
      { details: { sandbox_id: sandbox.id, sandbox_status: sandbox.status } },
    );
  }
  if (sandbox.status !== "RUNNING" || !sandbox.agentServerUrl) {
    throw new AppError(
      "SANDBOX_UNAVAILABLE",
      `Sandbox ${sandbox.id} is ${sandbox.status}${sandbox.statusDetail ? `: ${sandbox.statusDetail}` : ""}`,
      { details: { sandbox_id: sandbox.id, sandbox_status: sandbox.status } },
    );
  }
  const response = await deps.agents.request(sandbox.agentServerUrl, sandbox.sessionApiKey, {
    method: "POST",
    path: `/api/conversations/${conversation.id}/events`,
    body,
  });
  if (response.status >= 400) {
    throw new AppError("AGENT_SERVER_REJECTED", agentErrorDetail(response.body), {
      status: response.status,
    });
  }
  deps.activity.set(sandbox.id, deps.now());
  return { success: true, sandbox_status: "RUNNING", message: null };
}

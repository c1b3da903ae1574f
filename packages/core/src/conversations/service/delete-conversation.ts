import type { ConversationRow, SandboxRow } from "@sandbox-server/db";
import { errorMessage } from "@sandbox-server/runtime/error-message";
import type { CoreConfig, CoreDeps } from "../../deps";
import { type DeleteSandboxDeps, deleteSandbox } from "../../sandboxes/service/delete-sandbox";
import { findOwnedConversation } from "./find-conversation";

/**
 * Whether the conversation's create started its sandbox (it named no `sandbox_id`). Sandboxes a
 * user started on their own, or conversations from before start tasks, never count as its.
 */
async function startedItsSandbox(
  deps: Pick<CoreDeps, "repos">,
  row: ConversationRow,
): Promise<boolean> {
  const task = await deps.repos.startTasks.get(row.id);
  return task !== undefined && !task.request.sandbox_id;
}

async function otherConversations(
  deps: Pick<CoreDeps, "repos">,
  row: ConversationRow,
): Promise<number> {
  const all = await deps.repos.conversations.listBySandbox(row.sandboxId);
  return all.filter((other) => other.id !== row.id && !other.archived).length;
}

/** Best effort: the agent server forgets the conversation (its sandbox stays for the others). */
async function deleteOnAgentServer(
  deps: Pick<CoreDeps, "agents" | "log"> & { config: Pick<CoreConfig, "statusProbeTimeoutMs"> },
  sandbox: SandboxRow,
  id: string,
) {
  if (sandbox.status !== "RUNNING" || !sandbox.agentServerUrl) return;
  try {
    await deps.agents.request(sandbox.agentServerUrl, sandbox.sessionApiKey, {
      method: "DELETE",
      path: `/api/conversations/${id}`,
      timeoutMs: deps.config.statusProbeTimeoutMs,
    });
  } catch (error) {
    deps.log.warn({ conversationId: id, reason: errorMessage(error) }, "agent server kept it");
  }
}

/**
 * Deletes a conversation as OpenHands does: its record and stored events go; its sandbox goes too
 * when the conversation started it and no other live conversation is in it, otherwise the agent
 * server is asked to forget the conversation (while RUNNING). Start tasks stay, as the history of
 * the creates.
 */
export async function deleteConversation(
  deps: DeleteSandboxDeps & { config: Pick<CoreConfig, "statusProbeTimeoutMs"> },
  ownerId: string,
  id: string,
): Promise<void> {
  const row = await findOwnedConversation(deps, ownerId, id);
  const sandbox = await deps.repos.sandboxes.get(row.sandboxId);
  if (sandbox) {
    const alone = (await otherConversations(deps, row)) === 0;
    if (alone && (await startedItsSandbox(deps, row))) {
      await deleteSandbox(deps, ownerId, sandbox.id);
    } else {
      await deleteOnAgentServer(deps, sandbox, row.id);
    }
  }
  await deps.transaction(async (tx) => {
    await tx.conversationEvents.removeByConversation(row.id);
    await tx.conversations.remove(row.id);
  });
  deps.log.info({ conversationId: row.id, sandboxId: row.sandboxId }, "conversation deleted");
  deps.events.emit("conversation.deleted", row);
}

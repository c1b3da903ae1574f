import type { AgentServerContext } from "../context";
import type { Conversation } from "./conversation";

/** Stops the agent, closes its sockets (through the store's removal) and deletes its files. */
export async function deleteConversation(
  ctx: AgentServerContext,
  conversation: Conversation,
): Promise<void> {
  await ctx.runner.stop(conversation);
  ctx.store.remove(conversation);
  ctx.logger.info("conversation deleted", { conversation_id: conversation.id });
}

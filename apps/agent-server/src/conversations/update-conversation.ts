import type { UpdateConversationRequest } from "@sandbox-server/agent-contracts";
import type { Conversation } from "./conversation";

/**
 * PATCH: sets title and tags. Each changed field is also told to subscribers as a
 * ConversationStateUpdateEvent, so that a follower (the control plane) keeps its copy current.
 */
export function updateConversation(conversation: Conversation, update: UpdateConversationRequest) {
  const changes = {
    ...(update.title !== undefined && { title: update.title }),
    ...(update.tags !== undefined && { tags: update.tags }),
  };
  conversation.update(changes);
  for (const [key, value] of Object.entries(changes)) {
    conversation.append({
      kind: "ConversationStateUpdateEvent",
      source: "environment",
      key,
      value,
    });
  }
}

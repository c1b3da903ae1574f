import type { ConversationRow } from "@sandbox-server/db";
import type { CoreDeps } from "../../deps";
import { AppError } from "../../errors";

/** The caller's conversation, or 404 (another user's conversation is indistinguishable). */
export function findOwnedConversation(
  deps: CoreDeps,
  ownerId: string,
  id: string,
): ConversationRow {
  const row = deps.repos.conversations.get(id);
  if (!row || row.ownerId !== ownerId) {
    throw new AppError("CONVERSATION_NOT_FOUND", `Conversation ${id} was not found`);
  }
  return row;
}

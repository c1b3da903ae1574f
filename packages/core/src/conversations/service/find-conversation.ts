import type { ConversationRow } from "@sandbox-server/db";
import type { CoreDeps } from "../../deps";
import { AppError } from "../../errors";

/** The caller's conversation, or 404 (another user's conversation is indistinguishable). */
export async function findOwnedConversation(
  deps: Pick<CoreDeps, "repos">,
  ownerId: string,
  id: string,
): Promise<ConversationRow> {
  const row = await deps.repos.conversations.get(id);
  if (!row || row.ownerId !== ownerId) {
    throw new AppError("CONVERSATION_NOT_FOUND", `Conversation ${id} was not found`);
  }
  return row;
}

import type { ConversationPatch } from "@sandbox-server/db";
import { AppError } from "../../errors";
import type { AppConversation } from "../contracts";
import type { UpdateConversationInput } from "../update-contracts";
import type { ConversationWaitDeps } from "./discover-conversation";
import { findOwnedConversation } from "./find-conversation";
import { getConversation } from "./read-conversations";

/** The changes a PATCH asks for: only the fields it names. */
function patchOf(input: UpdateConversationInput): ConversationPatch {
  const patch: ConversationPatch = {};
  if (input.title !== undefined) patch.title = input.title?.trim() || null;
  if (input.public !== undefined) patch.public = input.public;
  if (input.selected_repository !== undefined) patch.selectedRepository = input.selected_repository;
  if (input.selected_branch !== undefined) patch.selectedBranch = input.selected_branch;
  if (input.git_provider !== undefined) patch.gitProvider = input.git_provider;
  return patch;
}

/** Renames a conversation or changes its OpenHands fields; answers it as read afterwards. */
export async function updateConversation(
  deps: ConversationWaitDeps,
  ownerId: string,
  input: UpdateConversationInput,
): Promise<AppConversation> {
  const id = input.id;
  await findOwnedConversation(deps, ownerId, id);
  const patch = patchOf(input);
  if (Object.keys(patch).length > 0) {
    const updated = await deps.repos.conversations.update(id, { ...patch, updatedAt: deps.now() });
    if (!updated) throw new AppError("CONVERSATION_NOT_FOUND", `Conversation ${id} was not found`);
  }
  return getConversation(deps, ownerId, id);
}

import type { Page } from "@sandbox-server/db";
import { findOwnedConversation } from "../../conversations/service/find-conversation";
import type { CoreDeps } from "../../deps";
import {
  type ConversationEvent,
  type SearchConversationEventsInput,
  toConversationEvent,
} from "../contracts";

/**
 * A page of the caller's conversation's stored events. Served from the store, so it answers the
 * same while the sandbox is paused, in ERROR, or gone (archived conversation).
 */
export async function searchConversationEvents(
  deps: CoreDeps,
  ownerId: string,
  input: SearchConversationEventsInput,
): Promise<Page<ConversationEvent>> {
  const conversation = await findOwnedConversation(deps, ownerId, input.id);
  const page = await deps.repos.conversationEvents.search(
    { conversationId: conversation.id, kind: input.kind },
    input.sort_order === "TIMESTAMP_DESC" ? "desc" : "asc",
    { limit: input.limit, pageId: input.page_id },
  );
  return { items: page.items.map(toConversationEvent), nextPageId: page.nextPageId };
}

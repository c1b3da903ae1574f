import type { Page, SortDirection } from "@sandbox-server/db";
import { findOwnedConversation } from "../../conversations/service/find-conversation";
import type { CoreDeps } from "../../deps";
import { type ConversationEvent, type EventQuery, toConversationEvent } from "../contracts";

/**
 * A page of the caller's conversation's stored events. Served from the store, so it answers the
 * same while the sandbox is paused, in ERROR, or gone (archived conversation).
 */
export async function searchConversationEvents(
  deps: Pick<CoreDeps, "repos">,
  ownerId: string,
  query: EventQuery,
  direction: SortDirection,
  page: { limit: number; page_id?: string | undefined },
): Promise<Page<ConversationEvent>> {
  const conversation = await findOwnedConversation(deps, ownerId, query.conversationId);
  const events = await deps.repos.conversationEvents.search(
    { ...query, conversationId: conversation.id },
    direction,
    { limit: page.limit, pageId: page.page_id },
  );
  return { items: events.items.map(toConversationEvent), nextPageId: events.nextPageId };
}

/** How many of the caller's conversation's stored events match. */
export async function countConversationEvents(
  deps: Pick<CoreDeps, "repos">,
  ownerId: string,
  query: EventQuery,
): Promise<number> {
  const conversation = await findOwnedConversation(deps, ownerId, query.conversationId);
  return deps.repos.conversationEvents.count({ ...query, conversationId: conversation.id });
}

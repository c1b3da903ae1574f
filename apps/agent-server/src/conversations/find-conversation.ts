import { z } from "zod";
import type { AgentServerContext } from "../context";
import { notFound } from "../errors";
import { validate } from "../http/validate";
import type { Conversation } from "./conversation";

export function findConversation(ctx: AgentServerContext, id: string): Conversation {
  const conversation = ctx.store.get(id);
  if (!conversation) throw notFound("Conversation");
  return conversation;
}

/** Conversation ids are 8-4-4-4-12 hex (any UUID), compared lower-case. */
export const ConversationId = z.guid().transform((id) => id.toLowerCase());

/** The schema's own pattern: a well-formed id (nearly every request) skips the schema's machinery. */
const guidPattern = z.regexes.guid;

/** The conversation named by a path parameter: 422 when not an id, 404 when unknown. */
export function conversationFromPath(ctx: AgentServerContext, raw: unknown): Conversation {
  const id =
    typeof raw === "string" && guidPattern.test(raw)
      ? raw.toLowerCase()
      : validate(ConversationId, raw, "path");
  return findConversation(ctx, id);
}

import { z } from "zod";
import type { AgentRunner } from "./agents/runner";
import type { BashService } from "./bash/bash-service";
import type { Conversation } from "./conversations/conversation";
import type { ConversationStore } from "./conversations/conversation-store";
import { notFound } from "./errors";
import type { KeyChecker } from "./http/auth";
import { validate } from "./http/validate";
import type { Logger } from "./logger";

/** What the verbs need, built once per server; tests build their own with real parts. */
export interface AgentServerContext {
  store: ConversationStore;
  runner: AgentRunner;
  bash: BashService;
  keys: KeyChecker;
  logger: Logger;
  workspaceDir: string;
  version: string;
  startedAt: number;
  /** Last request or socket message, for server_info's idle_time. */
  lastActivityAt: number;
  ready: boolean;
}

export function findConversation(ctx: AgentServerContext, id: string): Conversation {
  const conversation = ctx.store.get(id);
  if (!conversation) throw notFound("Conversation");
  return conversation;
}

/** Conversation ids are 8-4-4-4-12 hex (any UUID), compared lower-case. */
export const ConversationId = z.guid().transform((id) => id.toLowerCase());

/** The conversation named by a path parameter: 422 when not an id, 404 when unknown. */
export function conversationFromPath(ctx: AgentServerContext, raw: unknown): Conversation {
  return findConversation(ctx, validate(ConversationId, raw, "path"));
}

import { randomUUID } from "node:crypto";
import path from "node:path";
import type { ConversationInfo, CreateConversationRequest } from "@sandbox-server/agent-contracts";
import { nextInstant } from "../clock";
import type { AgentServerContext } from "../context";
import { sendMessage } from "../events/send-message";
import { ensureDirectory } from "../files/ensure-directory";
import type { Conversation } from "./conversation";

export const DEFAULT_MAX_ITERATIONS = 500;

/** Creates a conversation, or returns the existing one with that id (idempotent create). */
export function createConversation(
  ctx: AgentServerContext,
  request: CreateConversationRequest,
): { conversation: Conversation; created: boolean } {
  const id = (request.conversation_id ?? randomUUID()).toLowerCase();
  const existing = ctx.store.get(id);
  if (existing) return { conversation: existing, created: false };

  const workingDir = path.resolve(ctx.workspaceDir, request.workspace?.working_dir ?? ".");
  ensureDirectory(workingDir);
  const now = nextInstant().iso;
  const info: ConversationInfo = {
    id,
    agent: request.agent,
    workspace: { ...request.workspace, working_dir: workingDir },
    execution_status: "idle",
    title: null,
    tags: request.tags ?? {},
    created_at: now,
    updated_at: now,
    max_iterations: request.max_iterations ?? DEFAULT_MAX_ITERATIONS,
    stats: { usage_to_metrics: {} },
  };
  const conversation = ctx.store.create(info);
  ctx.logger.info("conversation created", { conversation_id: id, agent: request.agent.kind });
  // OpenHands' clients never send `run` with an initial message and expect the agent to start,
  // as upstream's agent server does: it runs unless the message says `run: false`.
  if (request.initial_message) sendMessage(ctx, conversation, request.initial_message, true);
  return { conversation, created: true };
}

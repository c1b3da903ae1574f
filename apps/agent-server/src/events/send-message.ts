import {
  contentItems,
  type ExecutionStatus,
  type SendMessageRequest,
} from "@sandbox-server/agent-contracts";
import type { AgentServerContext } from "../context";
import type { Conversation } from "../conversations/conversation";

/** A conversation that has ended takes a new message as the start of a new turn. */
const reopenedBy: ReadonlySet<ExecutionStatus> = new Set(["finished", "error", "stuck"]);

/**
 * Appends a user MessageEvent and, when asked, runs the agent. The one place where the request's
 * defaults are applied: `role` is always "user", `run` falls back to `defaultRun` (false for
 * `POST .../events`, true for an initial message and over the WebSocket), so both transports leave identical events.
 */
export function sendMessage(
  ctx: AgentServerContext,
  conversation: Conversation,
  request: SendMessageRequest,
  defaultRun: boolean,
): void {
  conversation.append({
    kind: "MessageEvent",
    source: "user",
    llm_message: { role: "user", content: contentItems(request.content) },
    activated_skills: [],
    extended_content: [],
  });
  if (reopenedBy.has(conversation.status)) conversation.setStatus("idle");
  if (request.run ?? defaultRun) ctx.runner.ensureRunning(conversation);
}

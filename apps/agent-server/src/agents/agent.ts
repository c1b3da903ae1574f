import type { Conversation } from "../conversations/conversation";
import type { Logger } from "../logger";

/** What an agent gets for one run. */
export interface AgentRunContext {
  conversation: Conversation;
  /** Aborted on pause, delete and shutdown: stop soon, without changing the status. */
  signal: AbortSignal;
  /** Environment for commands (the server's, without secrets). */
  commandEnv: Record<string, string>;
  /** LLM_API_KEY of the agent server; wins over a key in the agent spec. */
  llmApiKey: string | undefined;
  logger: Logger;
}

/**
 * "finished": the agent handled every pending message; "error": it recorded a
 * ConversationErrorEvent and the conversation should stop.
 */
export type RunOutcome = "finished" | "error";

export interface Agent {
  run(ctx: AgentRunContext): Promise<RunOutcome>;
}

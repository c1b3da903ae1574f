import type { Logger } from "../logger";
import type { ConversationStore } from "./conversation-store";

/** An agent that was running when the process stopped cannot be resumed mid-step: error. */
export function recoverInterruptedRuns(store: ConversationStore, logger: Logger): void {
  for (const conversation of store.all()) {
    if (conversation.status !== "running") continue;
    conversation.append({
      kind: "ConversationErrorEvent",
      source: "environment",
      code: "AgentServerRestarted",
      detail: "The agent server stopped while this conversation was running",
    });
    conversation.setStatus("error");
    logger.warn("interrupted run marked as error", { conversation_id: conversation.id });
  }
}

import type { Agent } from "./agent";
import { messageText, nextPendingMessage } from "./pending-messages";
import { runTerminalCall } from "./terminal-tool";

/**
 * The deterministic agent: each pending user message's text runs as one bash command; the
 * output comes back as an agent message. Messages sent meanwhile are handled in the same run.
 */
export const shellAgent: Agent = {
  async run(ctx) {
    const { conversation } = ctx;
    for (;;) {
      if (ctx.signal.aborted) return "finished";
      const pending = nextPendingMessage(conversation);
      if (!pending) return "finished";
      // Advance first: after a crash a command is not run twice.
      conversation.advanceCursor(pending.index + 1);
      const command = messageText(pending.event).trim();
      const reply =
        command === ""
          ? "The shell agent runs text messages as bash commands; this message has no text."
          : await runTerminalCall(ctx, { command });
      conversation.append({
        kind: "MessageEvent",
        source: "agent",
        llm_message: { role: "assistant", content: [{ type: "text", text: reply }] },
      });
    }
  },
};

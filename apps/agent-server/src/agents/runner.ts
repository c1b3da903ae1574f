import type { Conversation } from "../conversations/conversation";
import { AppError } from "../errors";
import { describeError, type Logger } from "../logger";
import { nextPendingMessage } from "./pending-messages";
import { loadAgent } from "./registry";

interface ActiveRun {
  controller: AbortController;
  done: Promise<void>;
}

export interface RunnerOptions {
  commandEnv: Record<string, string>;
  llmApiKey: string | undefined;
  logger: Logger;
}

/**
 * Owns the execution_status state machine: idle/paused/finished/error → running → finished |
 * error | paused. Each change is recorded as a ConversationStateUpdateEvent by the conversation.
 */
export class AgentRunner {
  private readonly active = new Map<string, ActiveRun>();

  constructor(private readonly options: RunnerOptions) {}

  isRunning(conversation: Conversation): boolean {
    const run = this.active.get(conversation.id);
    return run !== undefined && !run.controller.signal.aborted;
  }

  get runningCount(): number {
    return [...this.active.values()].filter((run) => !run.controller.signal.aborted).length;
  }

  /** POST /run: a second run of a running conversation is a conflict. */
  start(conversation: Conversation): void {
    if (this.isRunning(conversation)) {
      throw new AppError("CONFLICT", "Conversation is already running");
    }
    this.ensureRunning(conversation);
  }

  /** A message with run: a running agent picks the message up by itself. */
  ensureRunning(conversation: Conversation): void {
    if (this.isRunning(conversation)) return;
    const controller = new AbortController();
    conversation.setStatus("running");
    // A paused run may still be winding down (killing its command): never two agents at once.
    const previous = this.active.get(conversation.id)?.done ?? Promise.resolve();
    const done = previous.then(() => this.drive(conversation, controller));
    this.active.set(conversation.id, { controller, done });
  }

  /** Pausing takes effect at once; the agent stops its current command or LLM call. */
  pause(conversation: Conversation): void {
    this.active.get(conversation.id)?.controller.abort();
    conversation.setStatus("paused");
  }

  /** Stops the agent without touching the status (delete, shutdown) and waits for it. */
  async stop(conversation: Conversation): Promise<void> {
    const run = this.active.get(conversation.id);
    run?.controller.abort();
    await run?.done;
  }

  async stopAll(): Promise<void> {
    const runs = [...this.active.values()];
    for (const run of runs) run.controller.abort();
    await Promise.all(runs.map((run) => run.done));
  }

  private async drive(conversation: Conversation, controller: AbortController): Promise<void> {
    const logger = this.options.logger.child({ conversation_id: conversation.id });
    const ctx = { ...this.options, conversation, signal: controller.signal, logger };
    // Leaving the active map and setting the final status happen in one synchronous step, so a
    // message or run request arriving meanwhile sees either a running agent or a stopped one.
    const end = (status?: "finished" | "error") => {
      if (this.active.get(conversation.id)?.controller === controller) {
        this.active.delete(conversation.id);
      }
      if (status && !controller.signal.aborted) conversation.setStatus(status);
    };
    try {
      const agent = await loadAgent(conversation.info.agent);
      for (;;) {
        const outcome = await agent.run(ctx);
        if (controller.signal.aborted) return end();
        if (outcome === "error") return end("error");
        if (!nextPendingMessage(conversation)) return end("finished");
      }
    } catch (error) {
      logger.error("agent run failed", { error: describeError(error) });
      if (!controller.signal.aborted) {
        conversation.append({
          kind: "ConversationErrorEvent",
          source: "environment",
          code: "AgentFailed",
          detail: "The agent stopped on an unexpected error",
        });
      }
      end("error");
    }
  }
}

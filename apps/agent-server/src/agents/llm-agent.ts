import type { LlmAgentSpec, OpenHandsAgentSpec } from "@sandbox-server/agent-contracts";
import type { Conversation } from "../conversations/conversation";
import type { Agent, AgentRunContext, RunOutcome } from "./agent";
import { type ChatCompletion, LlmError, requestChatCompletion } from "./chat-completions";
import { buildChatMessages } from "./llm-history";
import { resolveLlmSettings } from "./llm-settings";
import { FINISH_TOOL, LLM_TOOLS, systemPrompt } from "./llm-tools";
import { nextPendingMessage } from "./pending-messages";
import { runToolCall } from "./run-tool-call";

/**
 * The agent loop: ask the model, run the tools it calls, repeat until it calls `finish` or
 * answers without a tool; at most `max_iterations` model calls per run. A failed model call is
 * recorded as a ConversationErrorEvent and ends the run in `error`.
 */
export function createLlmAgent(spec: LlmAgentSpec | OpenHandsAgentSpec): Agent {
  return {
    async run(ctx) {
      const { conversation } = ctx;
      if (!nextPendingMessage(conversation)) return "finished";
      const settings = resolveLlmSettings(spec, ctx.llmApiKey);
      const prompt = systemPrompt(conversation.info.workspace.working_dir);

      for (let iteration = 0; iteration < conversation.info.max_iterations; iteration++) {
        if (ctx.signal.aborted) return "finished";
        const seen = conversation.events().length;
        let completion: ChatCompletion;
        try {
          const messages = buildChatMessages(prompt, conversation.events());
          completion = await requestChatCompletion(
            settings,
            { messages, tools: LLM_TOOLS },
            ctx.signal,
          );
        } catch (error) {
          if (ctx.signal.aborted) return "finished";
          return failRun(
            ctx,
            "LLMError",
            error instanceof LlmError ? error.message : "LLM call failed",
          );
        }
        // Only an answered call consumes the messages: after an error, a new run retries them.
        conversation.advanceCursor(seen);
        recordUsage(conversation, settings.model, completion);
        if (await handleAnswer(ctx, completion)) return "finished";
      }
      return failRun(
        ctx,
        "MaxIterationsReached",
        `The agent reached max_iterations (${conversation.info.max_iterations}) without finishing`,
      );
    },
  };
}

/** Runs the answer's tool calls; true when the turn is over (finish, or no tool called). */
async function handleAnswer(ctx: AgentRunContext, completion: ChatCompletion): Promise<boolean> {
  const message = completion.choices[0]?.message;
  const calls = message?.tool_calls ?? [];
  const responseId = completion.id ?? null;
  if (calls.length === 0) {
    ctx.conversation.append({
      kind: "MessageEvent",
      source: "agent",
      llm_message: {
        role: "assistant",
        content: [{ type: "text", text: message?.content || "(empty answer)" }],
      },
      llm_response_id: responseId,
    });
    return true;
  }
  let finished = false;
  for (const [index, call] of calls.entries()) {
    if (ctx.signal.aborted) break;
    // The model's text beside its calls is the thought of the first action, as upstream does.
    const thought =
      index === 0 && message?.content ? [{ type: "text" as const, text: message.content }] : [];
    finished = (await runToolCall(ctx, call, thought, responseId)) === FINISH_TOOL || finished;
  }
  return finished;
}

function failRun(ctx: AgentRunContext, code: string, detail: string): RunOutcome {
  ctx.logger.warn("llm run failed", { code });
  ctx.conversation.append({ kind: "ConversationErrorEvent", source: "environment", code, detail });
  return "error";
}

function recordUsage(conversation: Conversation, model: string, completion: ChatCompletion): void {
  const previous = conversation.info.stats.usage_to_metrics.agent as
    | { llm_calls: number; prompt_tokens: number; completion_tokens: number }
    | undefined;
  const usage = {
    model_name: model,
    llm_calls: (previous?.llm_calls ?? 0) + 1,
    prompt_tokens: (previous?.prompt_tokens ?? 0) + (completion.usage?.prompt_tokens ?? 0),
    completion_tokens:
      (previous?.completion_tokens ?? 0) + (completion.usage?.completion_tokens ?? 0),
  };
  conversation.update({ stats: { usage_to_metrics: { agent: usage } } });
}

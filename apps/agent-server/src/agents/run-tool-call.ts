import type { TextContent } from "@sandbox-server/agent-contracts";
import type { AgentRunContext } from "./agent";
import type { ChatToolCall } from "./chat-completions";
import { FINISH_TOOL, FinishArguments, parseArguments, TerminalArguments } from "./llm-tools";
import { runTerminalCall, TERMINAL_TOOL } from "./terminal-tool";

type ModelToolCall = Pick<ChatToolCall, "id" | "function">;

/**
 * Carries out one tool call of the model, recording it as events. Returns the tool's name, or
 * undefined when the call was invalid (recorded as an AgentErrorEvent the model will see).
 */
export async function runToolCall(
  ctx: AgentRunContext,
  call: ModelToolCall,
  thought: TextContent[],
  responseId: string | null,
): Promise<string | undefined> {
  const { name, arguments: raw } = call.function;
  const toolCall = { id: call.id, name, arguments: raw };
  if (name === TERMINAL_TOOL) {
    const args = parseArguments(TerminalArguments, raw);
    if (!args) return reportInvalidCall(ctx, call, "arguments must be {command, timeout?}");
    await runTerminalCall(ctx, {
      command: args.command,
      timeoutSeconds: args.timeout,
      toolCallId: call.id,
      thought,
      llmResponseId: responseId,
      toolCall,
    });
    return TERMINAL_TOOL;
  }
  if (name === FINISH_TOOL) {
    const message = parseArguments(FinishArguments, raw)?.message || "(finished)";
    const { conversation } = ctx;
    const action = conversation.append({
      kind: "ActionEvent",
      source: "agent",
      tool_name: FINISH_TOOL,
      tool_call_id: call.id,
      action: { kind: "FinishAction", message },
      thought,
      llm_response_id: responseId,
      tool_call: toolCall,
    });
    conversation.append({
      kind: "ObservationEvent",
      source: "environment",
      tool_name: FINISH_TOOL,
      tool_call_id: call.id,
      action_id: action.id,
      observation: {
        kind: "FinishObservation",
        content: [{ type: "text", text: message }],
        is_error: false,
      },
    });
    conversation.append({
      kind: "MessageEvent",
      source: "agent",
      llm_message: { role: "assistant", content: [{ type: "text", text: message }] },
      llm_response_id: responseId,
    });
    return FINISH_TOOL;
  }
  return reportInvalidCall(ctx, call, `unknown tool ${JSON.stringify(name)}`);
}

function reportInvalidCall(ctx: AgentRunContext, call: ModelToolCall, problem: string): undefined {
  ctx.conversation.append({
    kind: "AgentErrorEvent",
    source: "agent",
    error: `Invalid call of ${call.function.name}: ${problem}`,
    tool_name: call.function.name,
    tool_call_id: call.id,
  });
  return undefined;
}

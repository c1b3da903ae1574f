import { randomUUID } from "node:crypto";
import type { TextContent } from "@sandbox-server/agent-contracts";
import { type CommandResult, runCommand } from "../bash/run-command";
import type { AgentRunContext } from "./agent";

export const TERMINAL_TOOL = "terminal";
export const DEFAULT_COMMAND_TIMEOUT_SECONDS = 300;
/** Longest output put in an event (and so in the LLM's context). */
const MAX_OBSERVATION_CHARS = 30_000;

export interface TerminalCall {
  command: string;
  toolCallId?: string;
  thought?: TextContent[];
  llmResponseId?: string | null;
  timeoutSeconds?: number;
  /** The model's call as made (llm agent). */
  toolCall?: { id: string; name: string; arguments: string };
}

/**
 * Runs one command for an agent in the conversation's working directory, recording an
 * ActionEvent before and an ObservationEvent after. Returns the observation text.
 */
export async function runTerminalCall(ctx: AgentRunContext, call: TerminalCall): Promise<string> {
  const { conversation } = ctx;
  const toolCallId = call.toolCallId ?? `call_${randomUUID()}`;
  const timeout = call.timeoutSeconds ?? DEFAULT_COMMAND_TIMEOUT_SECONDS;
  const action = conversation.append({
    kind: "ActionEvent",
    source: "agent",
    tool_name: TERMINAL_TOOL,
    tool_call_id: toolCallId,
    action: { kind: "TerminalAction", command: call.command, is_input: false, timeout },
    thought: call.thought ?? [],
    llm_response_id: call.llmResponseId ?? null,
    ...(call.toolCall && { tool_call: call.toolCall }),
  });
  const result = await runCommand(call.command, {
    cwd: conversation.info.workspace.working_dir,
    timeoutSeconds: timeout,
    env: ctx.commandEnv,
    signal: ctx.signal,
  }).done;
  const text = describeResult(result, timeout);
  conversation.append({
    kind: "ObservationEvent",
    source: "environment",
    tool_name: TERMINAL_TOOL,
    tool_call_id: toolCallId,
    action_id: action.id,
    observation: {
      kind: "TerminalObservation",
      content: [{ type: "text", text }],
      command: call.command,
      exit_code: result.exitCode,
      is_error: result.exitCode !== 0,
      timeout: result.timedOut,
      stdout: truncateMiddle(result.stdout),
      stderr: truncateMiddle(result.stderr),
    },
  });
  return text;
}

/** Output followed by a note when the command did not end normally. */
export function describeResult(result: CommandResult, timeoutSeconds: number): string {
  const output = truncateMiddle(result.stdout + result.stderr);
  const notes: string[] = [];
  if (result.timedOut) notes.push(`[Command timed out after ${timeoutSeconds} s and was killed.]`);
  else if (result.interrupted) notes.push("[Command interrupted.]");
  else if (result.exitCode !== 0) notes.push(`[Exit code: ${result.exitCode}]`);
  if (output === "" && notes.length === 0) return "(no output)";
  return [output.replace(/\n$/, ""), ...notes].filter((part) => part !== "").join("\n");
}

/** Keeps the start and the end, where errors and results usually are. */
export function truncateMiddle(text: string, max = MAX_OBSERVATION_CHARS): string {
  if (text.length <= max) return text;
  const head = Math.floor(max / 3);
  const tail = max - head;
  const dropped = text.length - max;
  return `${text.slice(0, head)}\n[... ${dropped} characters omitted ...]\n${text.slice(-tail)}`;
}

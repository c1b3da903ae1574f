import { z } from "zod";
import type { ChatTool } from "./chat-completions";
import { TERMINAL_TOOL } from "./terminal-tool";

export const FINISH_TOOL = "finish";

export const TerminalArguments = z.object({
  command: z.string().min(1),
  timeout: z.number().positive().max(3600).optional(),
});

export const FinishArguments = z.object({ message: z.string().default("") });

/** The two tools offered to the model. */
export const LLM_TOOLS: ChatTool[] = [
  {
    type: "function",
    function: {
      name: TERMINAL_TOOL,
      description:
        "Run a bash command in the workspace and get its output and exit code. Each call starts a fresh shell in the working directory.",
      parameters: {
        type: "object",
        properties: {
          command: { type: "string", description: "The bash command to run." },
          timeout: {
            type: "number",
            description: "Seconds before the command is killed (default 300).",
          },
        },
        required: ["command"],
      },
    },
  },
  {
    type: "function",
    function: {
      name: FINISH_TOOL,
      description: "Finish the task, with a final message for the user.",
      parameters: {
        type: "object",
        properties: { message: { type: "string", description: "What was done, for the user." } },
        required: ["message"],
      },
    },
  },
];

export function systemPrompt(workingDir: string): string {
  return [
    "You are an autonomous agent working in a sandbox.",
    `Use the ${TERMINAL_TOOL} tool to run bash commands; they run in ${workingDir}.`,
    `When the task is done, call ${FINISH_TOOL} with a short message for the user.`,
  ].join("\n");
}

/** Parses a call's JSON arguments with a schema; undefined when they do not fit. */
export function parseArguments<T>(schema: z.ZodType<T>, raw: string): T | undefined {
  try {
    const result = schema.safeParse(JSON.parse(raw || "{}"));
    return result.success ? result.data : undefined;
  } catch {
    return undefined;
  }
}

import { z } from "zod";
import type { LlmSettings } from "./llm-settings";

/** The subset of the OpenAI chat-completions wire format the llm agent uses. */
export type ChatPart =
  | { type: "text"; text: string }
  | { type: "image_url"; image_url: { url: string } };

export interface ChatToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

export type ChatMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string | ChatPart[] }
  | { role: "assistant"; content: string | null; tool_calls?: ChatToolCall[] }
  | { role: "tool"; tool_call_id: string; content: string };

export interface ChatTool {
  type: "function";
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

const ChatCompletion = z.object({
  id: z.string().nullish(),
  choices: z
    .array(
      z.object({
        message: z.object({
          content: z.string().nullish(),
          tool_calls: z
            .array(
              z.object({
                id: z.string(),
                function: z.object({ name: z.string(), arguments: z.string().default("{}") }),
              }),
            )
            .nullish(),
        }),
      }),
    )
    .min(1),
  usage: z
    .object({ prompt_tokens: z.number().optional(), completion_tokens: z.number().optional() })
    .nullish(),
});
export type ChatCompletion = z.infer<typeof ChatCompletion>;

/** A failed call; `message` is safe to show (no key, a short excerpt of the answer at most). */
export class LlmError extends Error {}

const REQUEST_TIMEOUT_MS = 300_000;
const EXCERPT_CHARS = 300;

export async function requestChatCompletion(
  settings: LlmSettings,
  request: { messages: ChatMessage[]; tools: ChatTool[] },
  signal: AbortSignal,
): Promise<ChatCompletion> {
  let response: Response;
  try {
    response = await fetch(`${settings.baseUrl}/chat/completions`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        ...(settings.apiKey && { authorization: `Bearer ${settings.apiKey}` }),
      },
      body: JSON.stringify({ model: settings.model, ...request, tool_choice: "auto" }),
      signal: AbortSignal.any([signal, AbortSignal.timeout(REQUEST_TIMEOUT_MS)]),
    });
  } catch (error) {
    const reason = error instanceof Error && error.name === "TimeoutError" ? "timed out" : "failed";
    throw new LlmError(`LLM request ${reason}: could not reach ${settings.baseUrl}`);
  }
  const text = await response.text().catch(() => "");
  if (!response.ok) {
    throw new LlmError(`LLM request failed: HTTP ${response.status} ${excerpt(text)}`.trim());
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new LlmError("LLM answer is not JSON");
  }
  const parsed = ChatCompletion.safeParse(body);
  if (!parsed.success) throw new LlmError("LLM answer is not a chat completion");
  return parsed.data;
}

function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > EXCERPT_CHARS ? `${flat.slice(0, EXCERPT_CHARS)}…` : flat;
}

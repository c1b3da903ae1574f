import type { LlmAgentSpec, OpenHandsAgentSpec } from "@sandbox-server/agent-contracts";

export const DEFAULT_LLM_BASE_URL = "https://api.openai.com/v1";

export interface LlmSettings {
  model: string;
  baseUrl: string;
  apiKey: string | undefined;
}

/**
 * Model and endpoint come from the conversation's agent; the key from the agent server's
 * environment, else from the OpenHands shape's `llm.api_key`.
 */
export function resolveLlmSettings(
  spec: LlmAgentSpec | OpenHandsAgentSpec,
  environmentKey: string | undefined,
): LlmSettings {
  const llm = spec.kind === "Agent" ? spec.llm : spec;
  const specKey = "api_key" in llm && typeof llm.api_key === "string" ? llm.api_key : undefined;
  const baseUrl =
    typeof llm.base_url === "string" && llm.base_url ? llm.base_url : DEFAULT_LLM_BASE_URL;
  return {
    model: llm.model,
    baseUrl: baseUrl.replace(/\/+$/, ""),
    apiKey: environmentKey ?? (specKey || undefined),
  };
}

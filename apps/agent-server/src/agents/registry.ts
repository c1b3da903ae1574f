import type { AgentSpec } from "@sandbox-server/agent-contracts";
import type { Agent } from "./agent";
import { shellAgent } from "./shell-agent";

/**
 * The agent for a conversation's spec. The llm agent (its loop, tools and HTTP client) is loaded
 * on first use: a sandbox that never runs it never pays for it.
 */
export async function loadAgent(spec: AgentSpec): Promise<Agent> {
  if (spec.kind === "shell") return shellAgent;
  const { createLlmAgent } = await import("./llm-agent");
  return createLlmAgent(spec);
}

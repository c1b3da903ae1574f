import type { AgentSpec, ConversationInfo } from "@sandbox-server/agent-contracts";

const MASK = "**********";

/** ConversationInfo as clients see it: API keys in the agent are masked, like upstream does. */
export function toPublicInfo(info: Readonly<ConversationInfo>): ConversationInfo {
  return { ...info, agent: maskAgentSecrets(info.agent) };
}

function maskAgentSecrets(agent: AgentSpec): AgentSpec {
  const masked: AgentSpec = { ...agent };
  if ("api_key" in masked && masked.api_key) masked.api_key = MASK;
  if (masked.kind === "Agent" && masked.llm.api_key) {
    masked.llm = { ...masked.llm, api_key: MASK };
  }
  return masked;
}

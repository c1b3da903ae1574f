import type { SandboxRow } from "@sandbox-server/db";
import type { CoreDeps } from "../../deps";

/**
 * Calls that change nothing, made once a member is RUNNING, so that what its first claim and its
 * first conversation would load or compile happens before anyone waits for it: a rotation without
 * a key (422; the key check loads node:crypto, ~10 ms), then a conversation create of a claim's
 * shape refused for its id and `max_iterations` (422; the agent server loads its API — zod, the
 * contracts, the agents — and compiles the create's validation, ~3 times a later create's CPU).
 * A failure here is found by the claim.
 */
export async function warmUp(deps: CoreDeps, row: SandboxRow | undefined): Promise<void> {
  if (row?.status !== "RUNNING" || !row.agentServerUrl) return;
  for (const [path, body] of WARM_UP_CALLS) {
    await deps.agents
      .request(row.agentServerUrl, row.sessionApiKey, {
        method: "POST",
        path,
        body,
        timeoutMs: 2_000,
      })
      .catch(() => undefined);
  }
}

export const WARM_UP_CALLS: [path: string, body: string][] = [
  ["/api/session-keys", "{}"],
  [
    "/api/conversations",
    // Two fields out of range, each enough to refuse it: a warm-up never creates a conversation.
    JSON.stringify({
      conversation_id: "warm-up",
      agent: { kind: "shell" },
      initial_message: { role: "user", content: [{ type: "text", text: "true" }], run: true },
      max_iterations: 0,
    }),
  ],
];

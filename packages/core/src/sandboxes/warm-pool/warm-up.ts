import type { SandboxRow } from "@sandbox-server/db";
import type { CoreDeps } from "../../deps";

/**
 * Calls that change nothing, made once a member is RUNNING, so that what its first claim and its
 * first conversation would load or compile happens before anyone waits for it: a rotation without
 * a key (422; the key check loads node:crypto, ~10 ms), then a conversation create of a claim's
 * shape refused for its id and `max_iterations` (422; the agent server loads its API — zod, the
 * contracts, the agents — and compiles the create's validation, the most of a first create's CPU);
 * then an events socket for a conversation that does not exist (closed 4004; the agent server
 * loads its WebSocket server, which the control plane's first follow of a conversation would
 * otherwise wait for while the agent runs). A member holds that memory from then on, as any
 * sandbox does after its first call. A failure here is found by the claim.
 */
export async function warmUp(
  deps: Pick<CoreDeps, "agents">,
  row: SandboxRow | undefined,
): Promise<WarmUpOutcome | undefined> {
  if (row?.status !== "RUNNING" || !row.agentServerUrl) return undefined;
  const answers: (number | null)[] = [];
  for (const [path, body] of WARM_UP_CALLS) {
    const answer = await deps.agents
      .request(row.agentServerUrl, row.sessionApiKey, {
        method: "POST",
        path,
        body,
        timeoutMs: 2_000,
      })
      .catch(() => undefined);
    answers.push(answer?.status ?? null);
  }
  const socketClose = await openEventSocket(row.agentServerUrl, row.sessionApiKey).catch(
    () => null,
  );
  return { answers, socketClose };
}

/** What the agent server answered each call (null: no answer) and the socket's close code. */
export interface WarmUpOutcome {
  answers: (number | null)[];
  socketClose: number | null;
}

const SOCKET_TIMEOUT_MS = 2_000;

/** Opens `/sockets/events/warm-up`; the close code once the agent server has closed it. */
async function openEventSocket(agentServerUrl: string, sessionApiKey: string): Promise<number> {
  const { default: WebSocket } = await import("ws");
  const base = agentServerUrl.replace(/^http/, "ws");
  const socket = new WebSocket(`${base}/sockets/events/warm-up`, {
    headers: { "X-Session-API-Key": sessionApiKey },
    handshakeTimeout: SOCKET_TIMEOUT_MS,
    perMessageDeflate: false,
  });
  return new Promise<number>((resolve) => {
    const timer = setTimeout(() => socket.terminate(), SOCKET_TIMEOUT_MS);
    socket.on("error", () => undefined);
    socket.once("close", (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
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

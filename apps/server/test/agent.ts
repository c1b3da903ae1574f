import { setTimeout as sleep } from "node:timers/promises";
import WebSocket from "ws";

// biome-ignore lint/suspicious/noExplicitAny: agent-server events are inspected structurally
export type AgentEvent = Record<string, any>;

/** Every event of a conversation, oldest first, read straight from its agent server. */
export async function readEvents(conversationUrl: string, key: string): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  let pageId: string | null = null;
  do {
    const query: string = pageId ? `&page_id=${encodeURIComponent(pageId)}` : "";
    const res = await fetch(
      `${conversationUrl}/events/search?limit=100&sort_order=TIMESTAMP${query}`,
      {
        headers: { "x-session-api-key": key },
      },
    );
    if (res.status !== 200) throw new Error(`events search failed: ${res.status}`);
    const page = (await res.json()) as { items: AgentEvent[]; next_page_id: string | null };
    events.push(...page.items);
    pageId = page.next_page_id;
  } while (pageId);
  return events;
}

/** Polls the conversation until the agent is done with everything sent so far. */
export async function waitForExecution(
  conversationUrl: string,
  key: string,
  statuses: string[] = ["finished", "error"],
  timeoutMs = 20_000,
): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  let last = "";
  while (Date.now() < deadline) {
    const res = await fetch(conversationUrl, { headers: { "x-session-api-key": key } });
    last = ((await res.json()) as { execution_status: string }).execution_status;
    if (statuses.includes(last)) return last;
    await sleep(50);
  }
  throw new Error(`conversation stayed ${last}`);
}

/** Opens the agent server's event socket for a conversation. */
export async function openEventSocket(agentServerUrl: string, conversationId: string, key: string) {
  const url = `${agentServerUrl.replace(/^http/, "ws")}/sockets/events/${conversationId}?session_api_key=${encodeURIComponent(key)}`;
  const socket = new WebSocket(url);
  const frames: AgentEvent[] = [];
  socket.on("message", (data) => frames.push(JSON.parse(data.toString()) as AgentEvent));
  await new Promise<void>((resolve, reject) => {
    socket.once("open", () => resolve());
    socket.once("error", reject);
  });
  return { socket, frames };
}

/** An event without what differs between equal events: ids, times, per-call ids. */
export function normaliseEvent(event: AgentEvent): AgentEvent {
  const drop = new Set(["id", "timestamp", "tool_call_id", "action_id", "llm_response_id"]);
  const walk = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(walk);
    if (value && typeof value === "object") {
      return Object.fromEntries(
        Object.entries(value)
          .filter(([k]) => !drop.has(k))
          .map(([k, v]) => [k, walk(v)]),
      );
    }
    return value;
  };
  return walk(event) as AgentEvent;
}

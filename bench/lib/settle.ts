import type { ControlPlane, Json } from "./control-plane";
import { sleep } from "./stats";

/**
 * Waits until the control plane has stored the conversation's newest event (it follows every
 * conversation and records each event), so a run's event recording is counted in that run and the
 * next run starts without a backlog. `api` calls the control plane as the conversation's owner.
 * Returns how long that took; 0 when there is nothing to wait for.
 */
export async function settleEvents(api: ControlPlane["api"], conv: Json): Promise<number> {
  const started = performance.now();
  const deadline = Date.now() + 120_000;
  const newest = await fetch(
    `${conv.conversation_url}/events/search?sort_order=TIMESTAMP_DESC&limit=1`,
    { headers: { "x-session-api-key": conv.session_api_key } },
  ).then(async (res) => ((await res.json()) as Json).items[0]?.id as string | undefined);
  if (!newest) return 0;
  while (Date.now() < deadline) {
    // Events with equal timestamps may be ordered differently: look among the newest hundred.
    const stored = await api(
      "GET",
      `/api/v1/app-conversations/${conv.id}/events?sort_order=TIMESTAMP_DESC&limit=100`,
    );
    if (stored.status === 404) return 0;
    if (stored.body?.items?.some((e: Json) => e.id === newest)) return performance.now() - started;
    await sleep(20);
  }
  throw new Error("the control plane did not catch up with the conversation's events");
}

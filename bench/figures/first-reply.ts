import type { Json } from "../lib/control-plane";
import type { BenchContext, FigureResult, Row } from "../lib/figure";
import { ms } from "../lib/figure";
import { medianOf, perRuntime, RUNTIMES } from "../lib/runtimes";
import { since, sleep, summarize } from "../lib/stats";
import { skipText } from "./sandbox-start";

const CONVERSATIONS = 10;

/**
 * Figure 4: POST /app-conversations with a shell-agent `initial_message` (run: true) → the
 * agent's reply (a MessageEvent from the agent) on the agent server, polled every 10 ms.
 */
export async function firstReply(ctx: BenchContext): Promise<FigureResult> {
  const data = await perRuntime(ctx, {}, async (cp) => {
    const total: number[] = [];
    const created: number[] = [];
    for (let i = 0; i < CONVERSATIONS; i++) {
      const started = performance.now();
      const res = await cp.api("POST", "/api/v1/app-conversations", {
        agent: { kind: "shell" },
        initial_message: {
          role: "user",
          content: [{ type: "text", text: `echo reply-${i}` }],
          run: true,
        },
      });
      if (res.status !== 201) throw new Error(`create: ${res.status} ${JSON.stringify(res.body)}`);
      created.push(since(started));
      await waitForAgentReply(res.body, `reply-${i}`);
      total.push(since(started));
      await cp.api("DELETE", `/api/v1/sandboxes/${res.body.sandbox_id}`);
    }
    return {
      conversations: CONVERSATIONS,
      create_to_first_reply_ms: summarize(total),
      create_answered_ms: summarize(created),
    };
  });
  const rows: Row[] = RUNTIMES.map((runtime) => {
    const p50 = medianOf(data[runtime], "create_to_first_reply_ms");
    const entry = data[runtime] as { create_to_first_reply_ms?: { p95: number } };
    return {
      figure: "Conversation create → first agent reply",
      runtime,
      measure: `p50 / p95 (n=${CONVERSATIONS})`,
      value:
        p50 === null
          ? skipText(data[runtime])
          : `${ms(p50)} / ${ms(entry.create_to_first_reply_ms?.p95 ?? Number.NaN)}`,
    };
  });
  ctx.log(`first reply: ${rows.map((r) => `${r.runtime} ${r.value}`).join("; ")}`);
  return { key: "conversation_first_reply", data, rows };
}

async function waitForAgentReply(conv: Json, expected: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  const url = `${conv.conversation_url}/events/search?kind=MessageEvent&source=agent&limit=10`;
  while (Date.now() < deadline) {
    const res = await fetch(url, { headers: { "x-session-api-key": conv.session_api_key } });
    const page = (await res.json()) as { items: Json[] };
    if (page.items.some((e) => JSON.stringify(e).includes(expected))) return;
    await sleep(10);
  }
  throw new Error(`no agent reply in conversation ${conv.id}`);
}

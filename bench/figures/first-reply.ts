import { spawn } from "node:child_process";
import type { Json } from "../lib/control-plane";
import type { BenchContext, FigureResult, Row } from "../lib/figure";
import { ms } from "../lib/figure";
import { medianOf, perRuntime, RUNTIMES } from "../lib/runtimes";
import { since, sleep, summarize } from "../lib/stats";
import { skipText } from "./sandbox-start";

const CONVERSATIONS = Number(process.env.BENCH_FIRST_REPLY_RUNS ?? 100);
/** Cold create → first reply against the floor (a bare node server's spawn → first answer). */
const COLD_TARGET_RATIO = 1.3;

/**
 * Figure 4: POST /app-conversations with a shell-agent `initial_message` (run: true) → the
 * agent's reply (a MessageEvent from the agent) on the agent server, polled every 10 ms. Each
 * run is preceded by one of the floor: a bare `node` HTTP server spawned and asked once, so that
 * the machine's mood of the moment weighs on both alike; the ratio of the medians is judged.
 */
export async function firstReply(ctx: BenchContext): Promise<FigureResult> {
  const data = await perRuntime(ctx, {}, async (cp) => {
    const total: number[] = [];
    const created: number[] = [];
    const floor: number[] = [];
    for (let i = 0; i < CONVERSATIONS; i++) {
      floor.push(await bareNodeFirstAnswer());
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
    const reply = summarize(total);
    const bare = summarize(floor);
    return {
      conversations: CONVERSATIONS,
      create_to_first_reply_ms: reply,
      create_answered_ms: summarize(created),
      bare_node_first_answer_ms: bare,
      ratio_to_floor: Math.round((reply.median / bare.median) * 100) / 100,
    };
  });
  const rows: Row[] = RUNTIMES.map((runtime) => {
    const p50 = medianOf(data[runtime], "create_to_first_reply_ms");
    const entry = data[runtime] as {
      create_to_first_reply_ms?: { p95: number };
      bare_node_first_answer_ms?: { median: number };
      ratio_to_floor?: number;
    };
    const ratio = entry.ratio_to_floor ?? Number.NaN;
    return {
      figure: "Conversation create → first agent reply",
      runtime,
      measure: `p50 / p95 (n=${CONVERSATIONS}, cold), and p50 against a bare node start's first answer`,
      value:
        p50 === null
          ? skipText(data[runtime])
          : `${ms(p50)} / ${ms(entry.create_to_first_reply_ms?.p95 ?? Number.NaN)}; floor ${ms(entry.bare_node_first_answer_ms?.median ?? Number.NaN)} → ${ratio}×`,
      ...(runtime === "process" && p50 !== null
        ? { target: `≤ ${COLD_TARGET_RATIO}× the floor`, met: ratio <= COLD_TARGET_RATIO }
        : {}),
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

/** A bare node HTTP server: spawn → its first answered request, in milliseconds (the floor). */
async function bareNodeFirstAnswer(): Promise<number> {
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [
      "-e",
      'const s=require("http").createServer((q,r)=>r.end("ok")).listen(0,"127.0.0.1",()=>console.log(s.address().port))',
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  try {
    const port = await new Promise<number>((resolve, reject) => {
      child.stdout.once("data", (chunk: Buffer) => resolve(Number(String(chunk).trim())));
      child.once("exit", (code) => reject(new Error(`bare node exited (${code})`)));
    });
    await (await fetch(`http://127.0.0.1:${port}/`)).text();
    return since(started);
  } finally {
    child.kill("SIGKILL");
  }
}

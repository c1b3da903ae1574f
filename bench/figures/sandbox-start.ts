import type { BenchContext, FigureResult, Row } from "../lib/figure";
import { ms } from "../lib/figure";
import { medianOf, perRuntime, RUNTIMES } from "../lib/runtimes";
import { waitForStatus } from "../lib/sandboxes";
import { since, summarize } from "../lib/stats";

const STARTS = 20;
const TARGETS = { process: 100, docker: 300 };

/** Figure 2: POST /sandboxes → RUNNING (the client waits with `?wait_for=RUNNING`), one start at a time. */
export async function sandboxStart(ctx: BenchContext): Promise<FigureResult> {
  const data = await perRuntime(ctx, {}, async (cp) => {
    const total: number[] = [];
    const accepted: number[] = [];
    for (let i = 0; i < STARTS; i++) {
      const started = performance.now();
      const res = await cp.api("POST", "/api/v1/sandboxes", {});
      if (res.status !== 201) throw new Error(`start: ${res.status} ${JSON.stringify(res.body)}`);
      accepted.push(since(started));
      await waitForStatus(cp, res.body.id, "RUNNING");
      total.push(since(started));
      await cp.api("DELETE", `/api/v1/sandboxes/${res.body.id}`);
    }
    return {
      starts: STARTS,
      to_running_ms: summarize(total),
      post_answered_ms: summarize(accepted),
    };
  });
  const rows: Row[] = RUNTIMES.map((runtime) => {
    const p50 = medianOf(data[runtime], "to_running_ms");
    const entry = data[runtime] as { to_running_ms?: { p95: number } };
    return {
      figure: "Sandbox start",
      runtime,
      measure: `POST /sandboxes → RUNNING, p50 / p95 (n=${STARTS})`,
      value:
        p50 === null
          ? skipText(data[runtime])
          : `${ms(p50)} / ${ms(entry.to_running_ms?.p95 ?? Number.NaN)}`,
      target: `p50 ≤ ${TARGETS[runtime]} ms`,
      ...(p50 === null ? {} : { met: p50 <= TARGETS[runtime] }),
    };
  });
  ctx.log(`sandbox start: ${rows.map((r) => `${r.runtime} ${r.value}`).join("; ")}`);
  return { key: "sandbox_start", data, rows };
}

export function skipText(entry: unknown): string {
  const e = entry as { skipped?: string; failed?: string };
  return e.skipped ?? (e.failed ? `failed: ${e.failed.split("\n")[0]?.slice(0, 80)}` : "n/a");
}

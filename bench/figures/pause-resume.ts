import type { BenchContext, FigureResult, Row } from "../lib/figure";
import { ms } from "../lib/figure";
import { medianOf, perRuntime, RUNTIMES } from "../lib/runtimes";
import { sendUntilAccepted } from "../lib/sandboxes";
import { since, sleep, summarize } from "../lib/stats";
import { skipText } from "./sandbox-start";

const CYCLES = 20;
const DOCKER_TARGET_MS = 150;

/** Figure 3: with the sandbox PAUSED, POST /resume and then send until the first 200. */
export async function pauseResume(ctx: BenchContext): Promise<FigureResult> {
  const data = await perRuntime(ctx, {}, async (cp) => {
    const created = await cp.api("POST", "/api/v1/app-conversations", {});
    if (created.status !== 201)
      throw new Error(`create: ${created.status} ${JSON.stringify(created.body)}`);
    const conv = created.body;
    const total: number[] = [];
    const resume: number[] = [];
    const attempts: number[] = [];
    for (let i = 0; i < CYCLES; i++) {
      const paused = await cp.api("POST", `/api/v1/sandboxes/${conv.sandbox_id}/pause`);
      if (paused.body?.status !== "PAUSED")
        throw new Error(`pause: ${JSON.stringify(paused.body)}`);
      await sleep(100);
      const started = performance.now();
      const resumed = await cp.api("POST", `/api/v1/sandboxes/${conv.sandbox_id}/resume`);
      resume.push(since(started));
      if (resumed.status !== 200)
        throw new Error(`resume: ${resumed.status} ${JSON.stringify(resumed.body)}`);
      attempts.push(await sendUntilAccepted(cp, conv.id, `after resume ${i}`));
      total.push(since(started));
    }
    return {
      cycles: CYCLES,
      resume_to_first_accepted_message_ms: summarize(total),
      resume_call_ms: summarize(resume),
      send_attempts_until_accepted: summarize(attempts),
    };
  });
  const rows: Row[] = RUNTIMES.map((runtime) => {
    const p50 = medianOf(data[runtime], "resume_to_first_accepted_message_ms");
    const entry = data[runtime] as { resume_to_first_accepted_message_ms?: { p95: number } };
    return {
      figure: "Pause → resume → first message",
      runtime,
      measure: `p50 / p95 (n=${CYCLES})`,
      value:
        p50 === null
          ? skipText(data[runtime])
          : `${ms(p50)} / ${ms(entry.resume_to_first_accepted_message_ms?.p95 ?? Number.NaN)}`,
      ...(runtime === "docker"
        ? {
            target: `p50 ≤ ${DOCKER_TARGET_MS} ms`,
            ...(p50 === null ? {} : { met: p50 <= DOCKER_TARGET_MS }),
          }
        : {}),
    };
  });
  ctx.log(`pause/resume: ${rows.map((r) => `${r.runtime} ${r.value}`).join("; ")}`);
  return { key: "pause_resume_first_message", data, rows };
}

import { ADMIN_KEY, removeDataDir, startControlPlane } from "../lib/control-plane";
import type { BenchContext, FigureResult } from "../lib/figure";
import { ms } from "../lib/figure";
import { deleteAll } from "../lib/sandboxes";
import { runWrk } from "../lib/wrk";

const CONNECTIONS = 16;
const SECONDS = 10;

/**
 * Figure 6: GET /app-conversations/{id} of a conversation in a RUNNING sandbox (each read asks the
 * agent server for the live execution_status) at concurrency 16.
 */
export async function readThroughput(ctx: BenchContext): Promise<FigureResult> {
  const cp = await startControlPlane({ runtime: "process" });
  try {
    const created = await cp.api("POST", "/api/v1/app-conversations", {});
    if (created.status !== 201) throw new Error(`create: ${created.status}`);
    const target = {
      url: `${cp.url}/api/v1/app-conversations/${created.body.id}`,
      method: "GET" as const,
      headers: { authorization: `Bearer ${ADMIN_KEY}` },
    };
    await runWrk(target, CONNECTIONS, 1);
    const run = await runWrk(target, CONNECTIONS, SECONDS);
    const { rps, latency_ms: latency } = run;
    ctx.log(`read throughput: ${Math.round(rps)} req/s, p50 ${ms(latency.p50)}`);
    await deleteAll(cp);
    return {
      key: "read_throughput",
      data: {
        connections: CONNECTIONS,
        seconds: SECONDS,
        rps,
        failures: run.failures,
        latency_ms: latency,
      },
      rows: [
        {
          figure: "Read throughput",
          runtime: "process",
          measure: `GET /app-conversations/{id}, c=${CONNECTIONS}: req/s; p50 / p99`,
          value: `${Math.round(rps)} req/s; ${ms(latency.p50)} / ${ms(latency.p99)}`,
        },
      ],
    };
  } finally {
    await cp.stop();
    removeDataDir(cp.dataDir);
  }
}

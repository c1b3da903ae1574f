import { spawn } from "node:child_process";
import http from "node:http";
import { fileURLToPath } from "node:url";
import { ADMIN_KEY, removeDataDir, startControlPlane } from "../lib/control-plane";
import type { BenchContext, FigureResult } from "../lib/figure";
import { ms } from "../lib/figure";
import { since, sleep, summarize } from "../lib/stats";

const STRANGERS = 1000;
/** How long each phase measures (bounded: the strangers stop with it). */
const WINDOW_MS = 8_000;
/** The body a stranger announces and sends one byte a second. */
const DECLARED_BYTES = 1000;
const TARGET_P99_DELTA_MS = 5;
const strangersScript = fileURLToPath(new URL("../lib/slow-strangers.mjs", import.meta.url));

/**
 * An authenticated read timed one after another (keep-alive) for `WINDOW_MS`: alone, then while
 * STRANGERS clients without credentials each POST /api/v1/webhooks with a body that arrives one
 * byte a second, connecting again a second after they are cut off (lib/slow-strangers.mjs, a
 * process of its own). The figure is the p99 latency the strangers add.
 */
export async function slowStrangers(ctx: BenchContext): Promise<FigureResult> {
  const cp = await startControlPlane({ runtime: "process" });
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const url = new URL("/api/v1/sandboxes/search?limit=1", cp.url);
    await timeReads(url, agent, 1_000);
    const alone = summarize(await timeReads(url, agent, WINDOW_MS));
    const strangers = await startStrangers(Number(new URL(cp.url).port), STRANGERS);
    const loaded = summarize(await timeReads(url, agent, WINDOW_MS));
    const stats = await strangers.stop();
    const delta = loaded.p99 - alone.p99;
    ctx.log(
      `slow strangers: p99 ${ms(alone.p99)} alone, ${ms(loaded.p99)} with ${STRANGERS} strangers (${stats.connections} connections, ${stats.unauthorized} answered 401)`,
    );
    return {
      key: "slow_strangers",
      data: {
        strangers: STRANGERS,
        window_ms: WINDOW_MS,
        alone_ms: alone,
        with_strangers_ms: loaded,
        p99_delta_ms: Math.round(delta * 1000) / 1000,
        stranger_connections: stats.connections,
        stranger_401s: stats.unauthorized,
      },
      rows: [
        {
          figure: "Slow strangers",
          runtime: "process",
          measure: `authenticated GET /sandboxes/search p50 / p99: alone; with ${STRANGERS} unauthenticated clients dripping a POST body at 1 byte/s`,
          value: `${ms(alone.median)} / ${ms(alone.p99)}; ${ms(loaded.median)} / ${ms(loaded.p99)} (+${ms(Math.max(0, delta))} at p99)`,
          target: `p99 + ≤ ${TARGET_P99_DELTA_MS} ms`,
          met: delta <= TARGET_P99_DELTA_MS,
        },
      ],
      notes: [
        `**Slow strangers**: ${STRANGERS} clients without credentials, each sending POST /api/v1/webhooks headers and then a ${DECLARED_BYTES}-byte body one byte a second, connecting again a second after they are cut off (a process of their own), for ${WINDOW_MS / 1000} s; meanwhile one client times authenticated reads one after another on a keep-alive connection, compared with the same reads alone just before. Everything shares the machine's cores.`,
      ],
    };
  } finally {
    agent.destroy();
    await cp.stop();
    removeDataDir(cp.dataDir);
  }
}

/** Latencies (ms) of GETs sent one after another for `windowMs`. */
async function timeReads(url: URL, agent: http.Agent, windowMs: number): Promise<number[]> {
  const latencies: number[] = [];
  const end = performance.now() + windowMs;
  while (performance.now() < end) {
    const start = performance.now();
    const status = await get(url, agent);
    if (status !== 200) throw new Error(`authenticated read answered ${status}`);
    latencies.push(since(start));
  }
  return latencies;
}

function get(url: URL, agent: http.Agent): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.get(
      url,
      { agent, headers: { authorization: `Bearer ${ADMIN_KEY}` } },
      (res) => {
        res.resume();
        res.once("end", () => resolve(res.statusCode ?? 0));
      },
    );
    req.once("error", reject);
  });
}

/** The strangers (lib/slow-strangers.mjs) as a process of their own. */
async function startStrangers(port: number, count: number) {
  const child = spawn(process.execPath, [strangersScript], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", PORT: String(port), COUNT: String(count) },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const killOnExit = () => child.kill("SIGKILL");
  process.once("exit", killOnExit);
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  for (;;) {
    if (output.includes("connected")) break;
    if (child.exitCode !== null) throw new Error(`strangers exited:\n${output}`);
    await sleep(50);
  }
  return {
    async stop(): Promise<{ connections: number; unauthorized: number }> {
      child.kill("SIGTERM");
      await exited;
      process.off("exit", killOnExit);
      const last = output.trim().split("\n").at(-1) ?? "{}";
      return JSON.parse(last);
    },
  };
}

import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { agentServerEntry, freePort } from "../lib/control-plane";
import type { BenchContext, FigureResult } from "../lib/figure";
import { ms } from "../lib/figure";
import { memoryMib, residentMib } from "../lib/proc";
import { since, sleep, summarize } from "../lib/stats";

const STARTS = 10;
const IDLE_MS = 5000;
// The RSS target is below what a bare node:http server on Node 20 takes (most of its resident
// pages are the `node` binary's, shared by every sandbox), so private memory is reported beside it.
const TARGETS = { toHealthyMs: 100, idleRssMib: 40 };

interface Started {
  child: ChildProcess;
  dir: string;
  toHealthyMs: number;
}

/**
 * Figure 8: the agent-server bundle spawned directly (node, no runtime, no control plane): time
 * from spawn to the first 200 on /health (polled every 2 ms), and its memory after IDLE_MS of
 * idling: RSS (the target's measure) and the private part (USS) that each further one adds.
 * STARTS servers one after another, all left running until the RSS is read.
 */
export async function agentServer(ctx: BenchContext): Promise<FigureResult> {
  const started: Started[] = [];
  try {
    for (let i = 0; i < STARTS; i++) started.push(await startOne());
    await sleep(IDLE_MS);
    const rss = started.map((s) => residentMib(s.child.pid ?? -1));
    const memory = started.map((s) => memoryMib(s.child.pid ?? -1));
    const toHealthy = summarize(started.map((s) => s.toHealthyMs));
    const rssSummary = summarize(rss);
    const privateSummary = summarize(memory.map((m) => m.private));
    ctx.log(
      `agent server: healthy after ${ms(toHealthy.median)}, idle RSS ${rssSummary.median} MiB (private ${privateSummary.median})`,
    );
    return {
      key: "agent_server",
      data: {
        starts: STARTS,
        idle_ms_before_rss: IDLE_MS,
        spawn_to_healthy_ms: toHealthy,
        idle_rss_mib: rssSummary,
        // Not shared with any other process: what one more agent server costs the host.
        idle_private_mib: privateSummary,
        idle_pss_mib: summarize(memory.map((m) => m.pss)),
      },
      rows: [
        {
          figure: "Agent server (bundle spawned directly)",
          runtime: "—",
          measure: `spawn → first 200 on /health, p50 / p95 (n=${STARTS})`,
          value: `${ms(toHealthy.median)} / ${ms(toHealthy.p95)}`,
          target: `p50 ≤ ${TARGETS.toHealthyMs} ms`,
          met: toHealthy.median <= TARGETS.toHealthyMs,
        },
        {
          figure: "Agent server (bundle spawned directly)",
          runtime: "—",
          measure: `VmRSS after ${IDLE_MS / 1000} s idle, p50 (min–max)`,
          value: `${rssSummary.median} MiB (${rssSummary.min}–${rssSummary.max})`,
          target: `p50 ≤ ${TARGETS.idleRssMib} MiB`,
          met: rssSummary.median <= TARGETS.idleRssMib,
        },
        {
          figure: "Agent server (bundle spawned directly)",
          runtime: "—",
          measure: `private memory (USS) after ${IDLE_MS / 1000} s idle, p50 (min–max)`,
          value: `${privateSummary.median} MiB (${privateSummary.min}–${privateSummary.max})`,
        },
      ],
    };
  } finally {
    for (const s of started) await stopOne(s);
  }
}

async function startOne(): Promise<Started> {
  const dir = mkdtempSync(path.join(tmpdir(), "sandbox-bench-agent-"));
  mkdirSync(path.join(dir, "workspace"));
  const port = await freePort();
  const begun = performance.now();
  const child = spawn(
    process.execPath,
    [agentServerEntry, "--port", String(port), "--host", "127.0.0.1"],
    {
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        HOME: dir,
        SESSION_API_KEY: "bench-session-key-0123456789",
        DATA_DIR: path.join(dir, "data"),
        WORKSPACE_DIR: path.join(dir, "workspace"),
      },
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const deadline = Date.now() + 30_000;
  for (;;) {
    const ok = await fetch(`http://127.0.0.1:${port}/health`).then(
      (res) => res.status === 200,
      () => false,
    );
    if (ok) break;
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill("SIGKILL");
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`agent server did not become healthy:\n${stderr}`);
    }
    await sleep(2);
  }
  return { child, dir, toHealthyMs: since(begun) };
}

async function stopOne(s: Started): Promise<void> {
  if (s.child.exitCode === null && s.child.signalCode === null) {
    const exited = new Promise((resolve) => s.child.once("exit", resolve));
    s.child.kill("SIGTERM");
    await Promise.race([exited, sleep(5000)]);
    if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill("SIGKILL");
  }
  rmSync(s.dir, { recursive: true, force: true });
}

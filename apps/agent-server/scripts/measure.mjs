// Measures the bundle's start (spawn → first /health answer) and idle RSS, N runs, medians.
// Usage: node scripts/measure.mjs [runs] [-- extra node flags]
// Run it on a quiet machine: start times move a lot with load; memory does not.

import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";

// MEASURE_SCRIPT measures another server instead (e.g. a bare node:http one, for reference).
const bundle =
  process.env.MEASURE_SCRIPT ?? new URL("../dist/agent-server.js", import.meta.url).pathname;
const args = process.argv.slice(2);
const dashes = args.indexOf("--");
const runs = Number(args[0] && args[0] !== "--" ? args[0] : 10);
const nodeFlags = dashes >= 0 ? args.slice(dashes + 1) : [];

// glibc tunables (e.g. MALLOC_MMAP_THRESHOLD_) are passed on, to measure their effect.
const mallocEnv = Object.fromEntries(
  Object.entries(process.env).filter(([name]) => name.startsWith("MALLOC_")),
);
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const mib = (kib) => +(median(kib) / 1024).toFixed(1);

/** CPU time the process has used so far, in ms (less sensitive to machine load than wall time). */
function cpuMs(pid) {
  return Number(fs.readFileSync(`/proc/${pid}/schedstat`, "utf8").split(" ")[0]) / 1e6;
}

/** Resident memory in KiB: all of it, and the private (anonymous) part. */
function memoryKiB(pid) {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  const field = (name) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { rss: field("VmRSS"), anon: field("RssAnon") };
}

async function once() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "agent-server-measure-"));
  const started = performance.now();
  const child = spawn(process.execPath, [...nodeFlags, bundle, "--port", "0"], {
    cwd: dir,
    env: { PATH: process.env.PATH, SESSION_API_KEY: "k", LOG_LEVEL: "warn", ...mallocEnv },
    stdio: ["ignore", "pipe", "inherit"],
  });
  // The startup contract: the first stdout line names the bound port.
  const line = await new Promise((resolve, reject) => {
    createInterface({ input: child.stdout }).once("line", resolve);
    child.once("exit", (code) => reject(new Error(`exited with ${code} before listening`)));
  });
  const { port } = JSON.parse(line);
  let healthyMs;
  let healthyCpuMs;
  for (;;) {
    try {
      const response = await fetch(`http://127.0.0.1:${port}/health`);
      if (response.ok) {
        healthyMs = performance.now() - started;
        healthyCpuMs = cpuMs(child.pid);
        break;
      }
    } catch {}
    await sleep(2);
  }
  await sleep(1500);
  const idle = memoryKiB(child.pid);
  // One API call exercises the lazy paths a real sandbox hits first.
  await fetch(`http://127.0.0.1:${port}/api/conversations`, {
    method: "POST",
    headers: { "x-session-api-key": "k", "content-type": "application/json" },
    body: JSON.stringify({ agent: { kind: "shell" } }),
  });
  await sleep(500);
  const afterCall = memoryKiB(child.pid);
  child.kill("SIGTERM");
  await new Promise((resolve) => child.once("exit", resolve));
  fs.rmSync(dir, { recursive: true, force: true });
  return { healthyMs, healthyCpuMs, idle, afterCall };
}

const results = [];
for (let i = 0; i < runs; i++) results.push(await once());
console.log(
  JSON.stringify({
    runs,
    node_flags: nodeFlags,
    start_to_healthy_ms_median: Math.round(median(results.map((r) => r.healthyMs))),
    start_to_healthy_ms_min: Math.round(Math.min(...results.map((r) => r.healthyMs))),
    cpu_ms_until_healthy_median: Math.round(median(results.map((r) => r.healthyCpuMs))),
    idle_rss_mib: mib(results.map((r) => r.idle.rss)),
    idle_private_rss_mib: mib(results.map((r) => r.idle.anon)),
    rss_after_first_call_mib: mib(results.map((r) => r.afterCall.rss)),
    private_rss_after_first_call_mib: mib(results.map((r) => r.afterCall.anon)),
  }),
);

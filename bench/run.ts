/**
 * `npm run bench`: every figure in turn against the built bundles (apps/server/dist,
 * apps/agent-server/dist), then bench/results/<date>.json and the table in README.md.
 *
 *   npm run bench -- --only proxy,webhook-fairness   some figures (merged into the day's file)
 *   npm run bench -- --seconds 8                     seconds per proxy cell, over 4 rounds (default 8)
 *   npm run bench -- --profile                       also a V8 CPU profile of send-message
 *   npm run bench -- --no-write                      print only; no JSON, no README
 *   npm run bench -- --list                          the figure names
 *
 * BENCH_SERVER_BUNDLE / BENCH_AGENT_SERVER_BUNDLE measure bundles built elsewhere (e.g. of another
 * commit) instead of apps/server/dist/server.js and apps/agent-server/dist/agent-server.js.
 */

import { execFileSync } from "node:child_process";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { agentServer } from "./figures/agent-server";
import { density } from "./figures/density";
import { egressDownload } from "./figures/egress-download";
import { eventStream } from "./figures/event-stream";
import { firstReply } from "./figures/first-reply";
import { lifetimeSweep } from "./figures/lifetime-sweep";
import { listing } from "./figures/listing";
import { pauseResume } from "./figures/pause-resume";
import { proxyOverhead } from "./figures/proxy-overhead";
import { readThroughput } from "./figures/read-throughput";
import { sandboxPorts } from "./figures/sandbox-ports";
import { sandboxStart } from "./figures/sandbox-start";
import { slowStrangers } from "./figures/slow-strangers";
import { warmPool } from "./figures/warm-pool";
import { webhookFairness } from "./figures/webhook-fairness";
import { agentServerEntry, serverBundle } from "./lib/control-plane";
import { DOCKER_IMAGE, dockerUnavailable } from "./lib/docker";
import type { BenchContext, FigureResult } from "./lib/figure";
import { describeMachine, updateReadme, writeResults } from "./lib/report";
import { wrkMissing, wrkVersion } from "./lib/wrk";

interface Entry {
  /** Name for --only. */
  name: string;
  /** Key in the results file (what the figure returns). */
  key: string;
  run: (ctx: BenchContext) => Promise<FigureResult>;
  needsWrk?: boolean;
}

const repoRoot = fileURLToPath(new URL("..", import.meta.url));

const FIGURES: Entry[] = [
  { name: "proxy", key: "proxy_overhead", run: proxyOverhead, needsWrk: true },
  { name: "sandbox-start", key: "sandbox_start", run: sandboxStart },
  { name: "egress-download", key: "egress_download", run: egressDownload },
  { name: "warm-pool", key: "warm_pool_claim", run: warmPool },
  { name: "pause-resume", key: "pause_resume_first_message", run: pauseResume },
  { name: "first-reply", key: "conversation_first_reply", run: firstReply },
  { name: "webhook-fairness", key: "webhook_fairness", run: webhookFairness },
  { name: "event-stream", key: "event_stream", run: eventStream },
  { name: "listing", key: "listing_at_scale", run: listing },
  { name: "lifetime-sweep", key: "lifetime_sweep", run: lifetimeSweep },
  { name: "read-throughput", key: "read_throughput", run: readThroughput, needsWrk: true },
  { name: "ports", key: "sandbox_ports", run: sandboxPorts, needsWrk: true },
  { name: "slow-strangers", key: "slow_strangers", run: slowStrangers },
  { name: "agent-server", key: "agent_server", run: agentServer },
  { name: "density", key: "density", run: density },
];

const { values } = parseArgs({
  options: {
    only: { type: "string" },
    seconds: { type: "string", default: "8" },
    profile: { type: "boolean", default: false },
    "no-write": { type: "boolean", default: false },
    list: { type: "boolean", default: false },
  },
});
if (values.list) {
  for (const f of FIGURES) process.stdout.write(`${f.name}\n`);
  process.exit(0);
}
const only = values.only?.split(",").map((name) => name.trim());
const unknown = only?.filter((name) => !FIGURES.some((f) => f.name === name)) ?? [];
if (unknown.length) {
  process.stderr.write(
    `unknown figure ${unknown.join(", ")}; one of: ${FIGURES.map((f) => f.name).join(", ")}\n`,
  );
  process.exit(2);
}
const seconds = Number(values.seconds);
if (!Number.isInteger(seconds) || seconds < 1 || seconds > 120) {
  process.stderr.write("--seconds must be a whole number from 1 to 120\n");
  process.exit(2);
}
const selected = FIGURES.filter((f) => !only || only.includes(f.name));
const noWrk = selected.some((f) => f.needsWrk) ? wrkMissing() : null;
if (noWrk) {
  process.stderr.write(`${noWrk}\n`);
  process.exit(1);
}

const started = performance.now();
const log = (line: string) => {
  process.stdout.write(
    `[bench ${((performance.now() - started) / 1000).toFixed(0).padStart(3)}s] ${line}\n`,
  );
};
const dockerSkip = await dockerUnavailable();
log(dockerSkip ? `Docker figures: ${dockerSkip}` : `Docker figures run on ${DOCKER_IMAGE}`);
const ctx: BenchContext = { dockerSkip, log, options: { seconds, profile: values.profile } };

const results: FigureResult[] = [];
for (const figure of selected) {
  log(`${figure.name}…`);
  // On a shared machine the figures move with the background load: each says what it was.
  const load = Math.round((os.loadavg()[0] ?? 0) * 10) / 10;
  const result = await figure.run(ctx);
  results.push({ ...result, data: { load_average_1m_at_start: load, ...result.data } });
}

const rows = results.flatMap((r) => r.rows);
for (const row of rows) {
  const verdict = row.met === undefined ? "" : row.met ? "  [met]" : "  [MISSED]";
  log(`${row.figure} (${row.runtime}) ${row.measure}: ${row.value}${verdict}`);
}
if (values["no-write"]) process.exit(0);

const date = new Date().toISOString().slice(0, 10);
const machine = describeMachine();
const { file, table, notes, loads } = writeResults(
  date,
  {
    date: new Date().toISOString(),
    machine,
    node: process.version,
    load_generator: wrkMissing() ? null : wrkVersion(),
    measured: {
      commit: gitHead(),
      server_bundle: shown(serverBundle),
      agent_server_bundle: shown(agentServerEntry),
    },
    runtimes: { process: "measured", docker: dockerSkip ?? `measured (${DOCKER_IMAGE})` },
    last_run: {
      figures: selected.map((f) => f.name),
      duration_s: Math.round((performance.now() - started) / 1000),
    },
  },
  results,
  FIGURES.map((f) => f.key),
);
await updateReadme(date, machine, file, table, notes, loads);
log(`wrote ${file} and the README table`);

/** A bundle's path: relative to the checkout when it is inside it. */
function shown(file: string): string {
  const relative = path.relative(repoRoot, file);
  return relative.startsWith("..") ? file : relative;
}

/** The checkout's commit, with "+changes" when its working tree differs from it. */
function gitHead(): string | null {
  try {
    const head = execFileSync("git", ["rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim();
    const dirty = execFileSync("git", ["status", "--porcelain", "--untracked-files=no"], {
      encoding: "utf8",
    }).trim();
    return dirty ? `${head}+changes` : head;
  } catch {
    return null;
  }
}

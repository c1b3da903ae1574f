import { readdirSync } from "node:fs";
import path from "node:path";
import {
  ADMIN_KEY,
  type ControlPlane,
  type Json,
  profilesDir,
  removeDataDir,
  startControlPlane,
} from "../lib/control-plane";
import type { BenchContext, FigureResult, Row } from "../lib/figure";
import { ms } from "../lib/figure";
import { combine, type LoadRun, type LoadTarget, runLoad } from "../lib/load";
import { inclusiveShares, summarizeProfile } from "../lib/profile-summary";
import { deleteAll } from "../lib/sandboxes";
import { sleep, summarize } from "../lib/stats";

const ROUNDS = 4;
const SECONDS = 3;
const BODY = JSON.stringify({
  role: "user",
  content: [{ type: "text", text: "bench" }],
  run: false,
});

/**
 * Figure 1: send-message through the control plane vs the same request straight to the agent
 * server's /events, same agent server, alternating A/B rounds (B/A every other round, so drift
 * on the agent server — its event log grows — hits both sides alike).
 */
export async function proxyOverhead(ctx: BenchContext): Promise<FigureResult> {
  const cp = await startControlPlane({ runtime: "process" });
  try {
    const data: Record<string, unknown> = {
      rounds: ROUNDS,
      seconds_per_round: SECONDS,
      body: BODY,
    };
    const rows: Row[] = [];
    for (const connections of [1, 16]) {
      const result = await measure(cp, connections);
      data[`c${connections}`] = result.data;
      ctx.log(
        `proxy overhead c=${connections}: ratio ${result.ratio.toFixed(3)}, +p50 ${ms(result.addedP50)}`,
      );
      rows.push(
        {
          figure: "Proxy overhead",
          runtime: "process",
          measure: `throughput proxy/direct, c=${connections}`,
          value: `${result.ratio.toFixed(2)} (${Math.round(result.proxyRps)} vs ${Math.round(result.directRps)} req/s)`,
          target: "≥ 0.8",
          met: result.ratio >= 0.8,
        },
        {
          figure: "Proxy overhead",
          runtime: "process",
          measure: `added p50 / p99 latency, c=${connections}`,
          value: `${ms(result.addedP50)} / ${ms(result.addedP99)}`,
          target: "p50 ≤ 1 ms",
          met: result.addedP50 <= 1,
        },
      );
    }
    data.baseline = await baseline(cp);
    await deleteAll(cp);
    if (rows.some((row) => row.met === false)) {
      ctx.log("proxy overhead: a target is missed; profiling the control plane (--cpu-prof)");
      data.profile = await profileProxy();
    }
    return { key: "proxy_overhead", data, rows };
  } finally {
    await cp.stop();
    removeDataDir(cp.dataDir);
  }
}

/**
 * For the report: the control plane's cost of an authenticated request that does no forwarding
 * (GET /users/me), next to send-message, at concurrency 1.
 */
async function baseline(cp: ControlPlane) {
  const run = await runLoad(
    {
      url: `${cp.url}/api/v1/users/me`,
      method: "GET",
      headers: { authorization: `Bearer ${ADMIN_KEY}` },
    },
    1,
    SECONDS,
  );
  return { users_me_c1: { rps: run.requests / run.seconds, latency_ms: summarize(run.latencies) } };
}

/** Functions whose inclusive share of the control plane's CPU the report names. */
const PROFILED = [
  "recordEvent",
  "queueDeliveries",
  "sendMessage",
  "createContextInner",
  "findUserByApiKey",
  "jsonParser",
  "reshapeRestErrors",
];

/** A separate run of the proxy side (c=16, 6 s) with --cpu-prof on the control plane. */
async function profileProxy() {
  const cp = await startControlPlane({ runtime: "process", cpuProfile: true });
  try {
    const created = await cp.api("POST", "/api/v1/app-conversations", {});
    const conv: Json = created.body;
    await runLoad(
      {
        url: `${cp.url}/api/v1/app-conversations/${conv.id}/send-message`,
        method: "POST",
        headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" },
        body: BODY,
      },
      16,
      6,
    );
    await settle(cp, conv);
    await deleteAll(cp);
  } finally {
    await cp.stop();
    removeDataDir(cp.dataDir);
  }
  const file = readdirSync(profilesDir)
    .filter((f) => f.includes(`.${cp.pid}.`) && f.endsWith(".cpuprofile"))
    .map((f) => path.join(profilesDir, f))[0];
  if (!file) return { error: "no profile written" };
  return {
    file: path.relative(process.cwd(), file),
    inclusive_percent: inclusiveShares(file, PROFILED),
    ...summarizeProfile(file, 12),
  };
}

async function measure(cp: ControlPlane, connections: number) {
  // A fresh conversation per level, on one sandbox: the same agent server throughout.
  const sandbox = await firstSandbox(cp);
  const created = await cp.api(
    "POST",
    "/api/v1/app-conversations",
    sandbox ? { sandbox_id: sandbox } : {},
  );
  if (created.status !== 201)
    throw new Error(`create: ${created.status} ${JSON.stringify(created.body)}`);
  const conv: Json = created.body;
  const proxy: LoadTarget = {
    url: `${cp.url}/api/v1/app-conversations/${conv.id}/send-message`,
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" },
    body: BODY,
  };
  const direct: LoadTarget = {
    url: `${conv.conversation_url}/events`,
    method: "POST",
    headers: { "x-session-api-key": conv.session_api_key, "content-type": "application/json" },
    body: BODY,
  };
  await runLoad(proxy, connections, 1);
  await runLoad(direct, connections, 1);
  const proxyRuns: LoadRun[] = [];
  const directRuns: LoadRun[] = [];
  const settleMs: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? ["proxy", "direct"] : ["direct", "proxy"];
    for (const side of order) {
      settleMs.push(await settle(cp, conv));
      if (side === "proxy") proxyRuns.push(await runLoad(proxy, connections, SECONDS));
      else directRuns.push(await runLoad(direct, connections, SECONDS));
    }
  }
  settleMs.push(await settle(cp, conv));
  const p = combine(proxyRuns);
  const d = combine(directRuns);
  const proxyRps = p.requests / p.seconds;
  const directRps = d.requests / d.seconds;
  const pLat = summarize(p.latencies);
  const dLat = summarize(d.latencies);
  return {
    ratio: proxyRps / directRps,
    proxyRps,
    directRps,
    addedP50: pLat.median - dLat.median,
    addedP99: pLat.p99 - dLat.p99,
    data: {
      connections,
      proxy: {
        rps: proxyRps,
        failures: p.failures,
        latency_ms: pLat,
        rps_per_round: proxyRuns.map((r) => r.requests / r.seconds),
      },
      direct: {
        rps: directRps,
        failures: d.failures,
        latency_ms: dLat,
        rps_per_round: directRuns.map((r) => r.requests / r.seconds),
      },
      throughput_ratio: proxyRps / directRps,
      // How long the control plane took, after each run, to store every event of the run.
      event_ingestion_backlog_ms: summarize(settleMs),
      added_latency_ms: {
        p50: pLat.median - dLat.median,
        p95: pLat.p95 - dLat.p95,
        p99: pLat.p99 - dLat.p99,
      },
    },
  };
}

/**
 * Waits until the control plane has stored the conversation's newest event (it follows every
 * conversation and records each event), so each run starts without a backlog from the last one.
 * Returns how long that took; 0 when the control plane has no events endpoint.
 */
async function settle(cp: ControlPlane, conv: Json): Promise<number> {
  const started = performance.now();
  const deadline = Date.now() + 120_000;
  const newest = await fetch(
    `${conv.conversation_url}/events/search?sort_order=TIMESTAMP_DESC&limit=1`,
    {
      headers: { "x-session-api-key": conv.session_api_key },
    },
  ).then(async (res) => ((await res.json()) as Json).items[0]?.id as string | undefined);
  if (!newest) return 0;
  while (Date.now() < deadline) {
    // Events with equal timestamps may be ordered differently: look among the newest hundred.
    const stored = await cp.api(
      "GET",
      `/api/v1/app-conversations/${conv.id}/events?sort_order=TIMESTAMP_DESC&limit=100`,
    );
    if (stored.status === 404) return 0;
    if (stored.body?.items?.some((e: Json) => e.id === newest)) return performance.now() - started;
    await sleep(20);
  }
  throw new Error("the control plane did not catch up with the conversation's events");
}

async function firstSandbox(cp: ControlPlane): Promise<string | null> {
  const page = await cp.api("GET", "/api/v1/sandboxes/search?limit=1");
  return page.body.items[0]?.id ?? null;
}

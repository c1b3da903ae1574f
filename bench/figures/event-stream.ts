import http from "node:http";
import type { AddressInfo } from "node:net";
import { Pool } from "undici";
import {
  ADMIN_KEY,
  type ControlPlane,
  type Json,
  removeDataDir,
  startControlPlane,
} from "../lib/control-plane";
import type { BenchContext, FigureResult, Row } from "../lib/figure";
import { ms } from "../lib/figure";
import { benchPostgres } from "../lib/postgres";
import { residentMib } from "../lib/proc";
import { deleteAll } from "../lib/sandboxes";
import { type Summary, sleep, summarize } from "../lib/stats";

/** Conversations producing events, each in a sandbox of its own. */
const SANDBOXES = Number(process.env.BENCH_EVENTS_SANDBOXES ?? 50);
/** Events a second produced in all (one user message, run: false, is one event). */
const RATE = Number(process.env.BENCH_EVENTS_RATE ?? 1000);
const STREAM_S = Number(process.env.BENCH_EVENTS_SECONDS ?? 60);
/** The stores to run on, of `sqlite` and `postgresql` (PostgreSQL only where one can be had). */
const STORES = (process.env.BENCH_EVENTS_STORES ?? "sqlite,postgresql").split(",");
/** After the stream, how long deliveries may take to arrive. */
const DRAIN_S = 60;
/** Sends are paced in ticks of this length (open loop: a slow answer does not delay the next). */
const TICK_MS = 10;

interface Stream {
  conversationId: string;
  pool: Pool;
  path: string;
  sessionKey: string;
}

/**
 * Events keep up: SANDBOXES conversations of one user produce RATE events a second in all for
 * STREAM_S seconds — user messages with `run: false`, sent straight to the agent servers over
 * kept-alive connections, so the generator costs little — and one webhook receives every event.
 * Reported: events sent, stored once, delivered once (by webhook-id), duplicates, the time from
 * the agent server's event timestamp to the delivery's arrival, and the control plane's memory
 * before, at the end of the stream and after the drain.
 */
export async function eventStream(ctx: BenchContext): Promise<FigureResult> {
  const postgres = STORES.includes("postgresql") ? benchPostgres(ctx.log) : null;
  const databases = [
    ...(STORES.includes("sqlite") ? [{ name: "sqlite", env: {} as Record<string, string> }] : []),
    ...(postgres ? [{ name: "postgresql", env: { DATABASE_URL: postgres.url } }] : []),
  ];
  const data: Record<string, unknown> = {
    sandboxes: SANDBOXES,
    events_per_s: RATE,
    stream_s: STREAM_S,
  };
  const rows: Row[] = [];
  try {
    for (const db of databases) {
      const result = await runOnce(ctx, db.env);
      data[db.name] = result;
      const delivery = result.emit_to_delivery_ms as Summary;
      rows.push({
        figure: "Events keep up",
        runtime: `process, ${db.name}`,
        measure: `${RATE} events/s from ${SANDBOXES} sandboxes for ${STREAM_S} s: delivered once / sent`,
        value:
          `${result.delivered_once} / ${result.sent} ` +
          `(${result.duplicates} duplicates, ${result.missing} missing, ${result.stored} stored; ` +
          `sent at ${result.sent_per_s}/s)`,
        target: `all, once, sent at ≥ ${Math.round(RATE * 0.95)}/s`,
        met:
          result.sent_per_s >= RATE * 0.95 &&
          result.delivered_once === result.sent &&
          result.stored === result.sent &&
          result.duplicates === 0,
      });
      rows.push({
        figure: "Events keep up",
        runtime: `process, ${db.name}`,
        measure: "agent server's emit → webhook arrival p50 / p95 / p99",
        value: `${ms(delivery.median)} / ${ms(delivery.p95)} / ${ms(delivery.p99)}`,
        target: "p99 ≤ 1 s",
        met: delivery.p99 <= 1000,
      });
      const rss = result.control_plane_rss_mib as Record<string, number>;
      rows.push({
        figure: "Events keep up",
        runtime: `process, ${db.name}`,
        measure: "control-plane RSS before / end of stream / 30 s after the drain",
        value: `${rss.before} / ${rss.end_of_stream} / ${rss.after_drain} MiB`,
      });
    }
  } finally {
    postgres?.stop();
  }
  return {
    key: "event_stream",
    data,
    rows,
    notes: [
      `**Events keep up**: ${SANDBOXES} conversations, each in its own process sandbox, of one ` +
        `user; ${RATE} user messages a second in all (run: false: one event each), sent straight ` +
        "to the agent servers over kept-alive connections; one webhook for MessageEvent to a " +
        "receiver in the bench process that answers at once. Times from the event's timestamp " +
        "(the agent server's clock, the same machine's) to the delivery's arrival.",
    ],
  };
}

async function runOnce(ctx: BenchContext, env: Record<string, string>) {
  const cp = await startControlPlane({
    runtime: "process",
    cpuProfile: ctx.options.profile,
    env: {
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
      MAX_RUNNING_SANDBOXES: String(SANDBOXES + 10),
      ...env,
    },
  });
  const receiver = await startCountingReceiver();
  const streams: Stream[] = [];
  try {
    await cp.api("POST", "/api/v1/webhooks", { url: receiver.url, events: ["MessageEvent"] });
    for (let i = 0; i < SANDBOXES; i += 5) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(5, SANDBOXES - i) }, () => createStream(cp)),
      );
      streams.push(...batch);
    }
    ctx.log(`event stream: ${streams.length} conversations ready`);
    const before = residentMib(cp.pid);
    const produceStarted = performance.now();
    const sent = await produce(streams);
    const produceSeconds = (performance.now() - produceStarted) / 1000;
    const endOfStream = residentMib(cp.pid);
    ctx.log(
      `event stream: ${sent.ok} sent (${sent.failed} refused) in ${produceSeconds.toFixed(1)} s, draining`,
    );
    const deadline = Date.now() + DRAIN_S * 1000;
    while (receiver.unique() < sent.ok && Date.now() < deadline) await sleep(250);
    await sleep(30_000);
    const afterDrain = residentMib(cp.pid);
    const stored = await countStored(cp, streams);
    const latency = summarize(receiver.latencies());
    const storeLag = await storeLagShares(cp);
    const windows = latencyWindows(receiver.arrivals());
    ctx.log(`event stream: stored within ${JSON.stringify(storeLag)}`);
    ctx.log(`event stream: p50 / p99 by 5 s of emit time: ${JSON.stringify(windows)}`);
    ctx.log(
      `event stream: delivered ${receiver.unique()} / ${sent.ok} (${receiver.duplicates()} ` +
        `duplicates, ${stored} stored), p50 ${ms(latency.median)}, p95 ${ms(latency.p95)}, ` +
        `p99 ${ms(latency.p99)}; RSS ${Math.round(before)} / ${Math.round(endOfStream)} / ` +
        `${Math.round(afterDrain)} MiB`,
    );
    return {
      sent: sent.ok,
      send_failures: sent.failed,
      sent_per_s: Math.round(sent.ok / produceSeconds),
      stored,
      delivered_once: receiver.unique(),
      duplicates: receiver.duplicates(),
      missing: sent.ok - receiver.unique(),
      emit_to_delivery_ms: latency,
      emit_to_delivery_by_5s: windows,
      emit_to_stored_share_within_s: storeLag,
      control_plane_rss_mib: {
        before: Math.round(before),
        end_of_stream: Math.round(endOfStream),
        after_drain: Math.round(afterDrain),
      },
    };
  } finally {
    for (const stream of streams) await stream.pool.close().catch(() => undefined);
    await deleteAll(cp).catch(() => undefined);
    await cp.stop();
    await receiver.close();
    removeDataDir(cp.dataDir);
  }
}

async function createStream(cp: ControlPlane): Promise<Stream> {
  const res = await cp.api("POST", "/api/v1/app-conversations", {});
  if (res.status !== 201) throw new Error(`create: ${res.status} ${JSON.stringify(res.body)}`);
  const url = new URL(res.body.conversation_url as string);
  return {
    conversationId: res.body.id,
    pool: new Pool(url.origin, { connections: 2, pipelining: 1 }),
    path: `${url.pathname}/events`,
    sessionKey: res.body.session_api_key,
  };
}

/** RATE messages a second over the streams, round-robin, for STREAM_S seconds. */
async function produce(streams: Stream[]): Promise<{ ok: number; failed: number }> {
  let ok = 0;
  let failed = 0;
  let next = 0;
  const pending = new Set<Promise<void>>();
  const total = RATE * STREAM_S;
  const started = performance.now();
  for (let sentSoFar = 0; sentSoFar < total; ) {
    const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * RATE) + 1);
    for (; sentSoFar < due; sentSoFar++) {
      const stream = streams[next++ % streams.length] as Stream;
      const body = JSON.stringify({
        role: "user",
        content: [{ type: "text", text: `event-${sentSoFar}` }],
        run: false,
      });
      const work = stream.pool
        .request({
          method: "POST",
          path: stream.path,
          headers: { "content-type": "application/json", "x-session-api-key": stream.sessionKey },
          body,
        })
        .then(async (res) => {
          await res.body.dump();
          if (res.statusCode === 200) ok++;
          else failed++;
        })
        .catch(() => {
          failed++;
        })
        .finally(() => pending.delete(work));
      pending.add(work);
    }
    await sleep(TICK_MS);
  }
  await Promise.all(pending);
  return { ok, failed };
}

/** The events the control plane holds for the streams' conversations. */
async function countStored(cp: ControlPlane, streams: Stream[]): Promise<number> {
  let total = 0;
  for (const stream of streams) {
    const res = await cp.api(
      "GET",
      `/api/v1/conversation/${stream.conversationId}/events/count?kind=MessageEvent`,
    );
    if (typeof res.body === "number") total += res.body;
  }
  return total;
}

/** p50 / p99 of emit → arrival for each 5 s of emit time: a backlog shows as growth. */
function latencyWindows(arrivals: [number, number][]): [number, number][] {
  if (arrivals.length === 0) return [];
  const first = arrivals.reduce((min, [at]) => Math.min(min, at), Number.POSITIVE_INFINITY);
  const windows: number[][] = [];
  for (const [at, latency] of arrivals) {
    const i = Math.floor((at - first) / 5000);
    const window = windows[i] ?? [];
    window.push(latency);
    windows[i] = window;
  }
  return Array.from(windows, (w = []) => {
    const s = summarize(w);
    return [Math.round(s.median), Math.round(s.p99)];
  });
}

/**
 * The share of events stored within each bound of the control plane's follower-lag histogram
 * (the agent server's emit → stored): how much of the delay is ingest's and how much delivery's.
 */
async function storeLagShares(cp: ControlPlane): Promise<Record<string, number>> {
  const res = await fetch(`${cp.url}/metrics`, {
    headers: { authorization: `Bearer ${ADMIN_KEY}` },
  }).catch(() => null);
  if (!res?.ok) return {};
  const text = await res.text();
  const buckets = new Map<string, number>();
  let count = 0;
  for (const line of text.split("\n")) {
    const bucket = /^sandbox_server_event_follower_lag_seconds_bucket\{le="([^"]+)"\} (\d+)/.exec(
      line,
    );
    if (bucket) buckets.set(bucket[1] as string, Number(bucket[2]));
    const total = /^sandbox_server_event_follower_lag_seconds_count (\d+)/.exec(line);
    if (total) count = Number(total[1]);
  }
  const shares: Record<string, number> = {};
  for (const le of ["0.05", "0.1", "0.25", "0.5", "1", "2.5", "5"]) {
    if (buckets.has(le) && count > 0)
      shares[le] = Number(((buckets.get(le) as number) / count).toFixed(3));
  }
  return shares;
}

interface CountingReceiver {
  url: string;
  unique(): number;
  duplicates(): number;
  latencies(): number[];
  /** [emitted, latency] of each first arrival. */
  arrivals(): [number, number][];
  close(): Promise<void>;
}

/** Answers 204 at once; counts deliveries by webhook-id and times each first arrival. */
async function startCountingReceiver(): Promise<CountingReceiver> {
  const seen = new Set<string>();
  let duplicates = 0;
  const latencies: number[] = [];
  const arrivals: [number, number][] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const arrived = Date.now();
      res.writeHead(204).end();
      const id = String(req.headers["webhook-id"] ?? "");
      if (seen.has(id)) {
        duplicates++;
        return;
      }
      seen.add(id);
      const payload = JSON.parse(Buffer.concat(chunks).toString()) as Json;
      const emitted = Date.parse(payload.occurred_at);
      if (!Number.isNaN(emitted)) {
        latencies.push(arrived - emitted);
        arrivals.push([emitted, arrived - emitted]);
      }
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    unique: () => seen.size,
    duplicates: () => duplicates,
    latencies: () => latencies,
    arrivals: () => arrivals,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

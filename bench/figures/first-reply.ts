import { spawn } from "node:child_process";
import { tmpdir } from "node:os";
import WebSocket from "ws";
import type { ControlPlane, Json } from "../lib/control-plane";
import type { BenchContext, FigureResult, Row } from "../lib/figure";
import { ms } from "../lib/figure";
import { perRuntime, RUNTIMES, type RuntimeKind } from "../lib/runtimes";
import { type Summary, since, sleep, summarize } from "../lib/stats";
import { waitForPool } from "../lib/warm-pool";
import { skipText } from "./sandbox-start";

const RUNS = Number(process.env.BENCH_FIRST_REPLY_RUNS ?? 100);
/** Some variants only (`cold`, `warm`), e.g. while iterating on one. */
const VARIANTS = (process.env.BENCH_FIRST_REPLY_VARIANTS ?? "cold,warm").split(",");
/** `process` leaves Docker out, e.g. while iterating on one. */
const DOCKER = process.env.BENCH_FIRST_REPLY_RUNTIMES !== "process";
const WARM_POOL_SIZE = 2;
/** Targets, as a ratio of the p50s to the floor (a bare node server's spawn → first answer). */
const COLD_TARGET_RATIO = 1.3;
const WARM_TARGET_RATIO = 0.3;
/** The warm pool's first member, and each refill, are waited for this long at most. */
const POOL_WAIT_MS = 60_000;
/**
 * A warm run starts this long after the pool is full: the refill's last steps (the member made
 * RUNNING, its warm-up call) are over, so the run measures a claim, not a claim racing a start.
 */
const POOL_SETTLE_MS = 500;
/**
 * How the client learns of the reply: `socket` (default), the conversation's events socket on
 * the agent server, opened once the create is answered (past events, then each as it is stored);
 * `poll`, its events search every POLL_MS, each poll a request the agent server answers while
 * the agent works.
 */
const READ = process.env.BENCH_FIRST_REPLY_READ === "poll" ? "poll" : "socket";
const POLL_MS = 2;

type Variant = "cold" | "warm";

/**
 * The moments of one run, in milliseconds after the request was sent, in the order they happen:
 * the sandbox RUNNING (cold) or claimed (warm) per the control plane's record (millisecond
 * precision); the conversation created on the agent server; the agent's command started, ended,
 * its reply stored (the agent server's event timestamps); the reply read by the client.
 */
const PHASES = ["sandbox", "conversation", "agent_start", "command", "reply", "seen"] as const;
type Phase = (typeof PHASES)[number];

interface Run {
  total: number;
  answered: number;
  floor: number;
  fromPool: boolean;
  phases: Record<Phase, number>;
}

/**
 * Figure 4: POST /app-conversations with a shell-agent `initial_message` (run: true) → the
 * agent's reply (a MessageEvent from the agent) readable on the agent server (READ). Cold: each conversation starts its sandbox. Warm: the server keeps WARM_POOL_SIZE
 * pre-started sandboxes and each conversation claims one (a run starts once the pool is full
 * again). Each run is preceded by one of the floor, a bare `node` HTTP server spawned and asked
 * once, so that the machine's mood of the moment weighs on both alike; the ratio of the medians
 * is judged. Where the time goes: the median of each phase between the moments above.
 */
export async function firstReply(ctx: BenchContext): Promise<FigureResult> {
  const measure = (variant: Variant) => async (cp: ControlPlane, runtime: RuntimeKind) => {
    const runs: Run[] = [];
    if (variant === "warm") await waitForPool(cp, runtime, 1, POOL_WAIT_MS);
    for (let i = 0; i < RUNS; i++) {
      const pool =
        variant === "warm" ? await waitForPool(cp, runtime, WARM_POOL_SIZE, POOL_WAIT_MS) : [];
      if (variant === "warm") await sleep(POOL_SETTLE_MS);
      const floor = await bareNodeFirstAnswer();
      runs.push({ ...(await createToFirstReply(cp, `reply-${i}`, pool)), floor });
    }
    return summarizeRuns(runs);
  };
  const cellCtx = DOCKER ? ctx : { ...ctx, dockerSkip: "skipped (BENCH_FIRST_REPLY_RUNTIMES)" };
  const envs: Record<Variant, Record<string, string>> = {
    cold: {},
    warm: { WARM_POOL_SIZE: String(WARM_POOL_SIZE) },
  };
  const data: Partial<Record<Variant, Record<RuntimeKind, Entry>>> = {};
  const rows: Row[] = [];
  for (const variant of ["cold", "warm"] as const) {
    if (!VARIANTS.includes(variant)) continue;
    const cells = await perRuntime(cellCtx, envs[variant], measure(variant));
    data[variant] = cells;
    for (const runtime of RUNTIMES) rows.push(...rowsOf(variant, runtime, cells[runtime]));
  }
  ctx.log(
    `first reply: ${rows
      .filter((r) => !r.measure.startsWith("where"))
      .map((r) => `${r.runtime} ${r.value}`)
      .join("; ")}`,
  );
  return {
    key: "conversation_first_reply",
    data: {
      runs_per_cell: RUNS,
      warm_pool_size: WARM_POOL_SIZE,
      reply_read_by: READ === "poll" ? `poll every ${POLL_MS} ms` : "events socket",
      ...data,
    },
    rows,
    notes: [
      `**Conversation create → first agent reply**: POST /app-conversations with a shell agent and \`initial_message\` \`echo …\` (run: true) until the agent's reply is readable on the agent server (${READ === "poll" ? `polled every ${POLL_MS} ms` : "read from its events socket, opened once the create is answered"}); cold starts a sandbox per conversation, warm claims one of WARM_POOL_SIZE=${WARM_POOL_SIZE} (each run once the pool is full again). The floor, measured before every run, is a bare \`node\` HTTP server's spawn → first answer, in the environment a sandbox's agent server gets (an inherited NODE_EXTRA_CA_CERTS would make it load the CA bundle at start, a slower node than any sandbox runs); the targets are ratios to it because the machine's load moves both. Phases: request → sandbox RUNNING or claimed (the control plane's record, ms precision) → conversation created on the agent server → the agent's command started → command done → reply stored → reply read by the client.`,
    ],
  };
}

/**
 * One conversation create (shell agent, `echo <expected>`) until the reply is read, its moments
 * and whether its sandbox was one of `pool`; the sandbox is deleted afterwards.
 */
export async function createToFirstReply(cp: ControlPlane, expected: string, pool: string[] = []) {
  const startedAt = performance.timeOrigin + performance.now();
  const started = performance.now();
  const res = await cp.api("POST", "/api/v1/app-conversations", {
    agent: { kind: "shell" },
    initial_message: {
      role: "user",
      content: [{ type: "text", text: `echo ${expected}` }],
      run: true,
    },
  });
  if (res.status !== 201) throw new Error(`create: ${res.status} ${JSON.stringify(res.body)}`);
  const answered = since(started);
  const conv = res.body;
  const seenAt = await waitForAgentReply(conv, expected);
  const total = seenAt - startedAt;
  const phases = await phaseMoments(cp, conv, startedAt, seenAt);
  await cp.api("DELETE", `/api/v1/sandboxes/${conv.sandbox_id}`);
  return { total, answered, fromPool: pool.includes(conv.sandbox_id), phases };
}

/** The moment (epoch ms) the agent's reply was read on the agent server. */
function waitForAgentReply(conv: Json, expected: string): Promise<number> {
  return READ === "poll" ? pollForAgentReply(conv, expected) : socketAgentReply(conv, expected);
}

const isReply = (event: Json, expected: string) =>
  event?.kind === "MessageEvent" &&
  event.source === "agent" &&
  JSON.stringify(event).includes(expected);

async function pollForAgentReply(conv: Json, expected: string): Promise<number> {
  const deadline = Date.now() + 30_000;
  const url = `${conv.conversation_url}/events/search?kind=MessageEvent&source=agent&limit=10`;
  while (Date.now() < deadline) {
    const res = await fetch(url, { headers: { "x-session-api-key": conv.session_api_key } });
    const page = (await res.json()) as { items: Json[] };
    if (page.items.some((e) => isReply(e, expected))) {
      return performance.timeOrigin + performance.now();
    }
    await sleep(POLL_MS);
  }
  throw new Error(`no agent reply in conversation ${conv.id}`);
}

function socketAgentReply(conv: Json, expected: string): Promise<number> {
  const url = String(conv.conversation_url);
  const base = url.slice(0, url.indexOf("/api/conversations/")).replace(/^http/, "ws");
  const socket = new WebSocket(`${base}/sockets/events/${conv.id}?resend_mode=all`, {
    headers: { "X-Session-API-Key": conv.session_api_key },
    perMessageDeflate: false,
  });
  return new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => {
      socket.terminate();
      reject(new Error(`no agent reply in conversation ${conv.id}`));
    }, 30_000);
    socket.on("message", (data) => {
      if (!isReply(JSON.parse(String(data)), expected)) return;
      clearTimeout(timer);
      resolve(performance.timeOrigin + performance.now());
      socket.close();
    });
    socket.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}

/** Each phase's length in ms, from the control plane's and the agent server's records. */
async function phaseMoments(
  cp: ControlPlane,
  conv: Json,
  startedAt: number,
  seenAt: number,
): Promise<Record<Phase, number>> {
  const headers = { "x-session-api-key": conv.session_api_key };
  const [sandbox, info, events] = await Promise.all([
    cp.api("GET", `/api/v1/sandboxes/${conv.sandbox_id}`).then((r) => r.body),
    fetch(conv.conversation_url, { headers }).then((r) => r.json() as Promise<Json>),
    fetch(`${conv.conversation_url}/events/search?limit=100`, { headers })
      .then((r) => r.json() as Promise<{ items: Json[] }>)
      .then((page) => page.items),
  ]);
  const at = (predicate: (e: Json) => boolean) => {
    const event = events.find(predicate);
    return event ? epochMs(event.timestamp) : Number.NaN;
  };
  const moments = [
    startedAt,
    epochMs(sandbox.updated_at),
    epochMs(info.created_at),
    at((e) => e.kind === "ActionEvent"),
    at((e) => e.kind === "ObservationEvent"),
    at((e) => e.kind === "MessageEvent" && e.source === "agent"),
    seenAt,
  ];
  return Object.fromEntries(
    PHASES.map((phase, i) => [phase, (moments[i + 1] ?? 0) - (moments[i] ?? 0)]),
  ) as Record<Phase, number>;
}

/** An ISO timestamp with up to microseconds (the agent server's) in epoch milliseconds. */
function epochMs(iso: string): number {
  const match = /^(.*T\d\d:\d\d:\d\d)(?:\.(\d+))?Z$/.exec(iso);
  if (!match) return Number.NaN;
  const fraction = Number(`0.${match[2] ?? "0"}`);
  return Date.parse(`${match[1]}Z`) + fraction * 1000;
}

function summarizeRuns(runs: Run[]) {
  const reply = summarize(runs.map((r) => r.total));
  const floor = summarize(runs.map((r) => r.floor));
  return {
    runs: runs.length,
    runs_from_pool: runs.filter((r) => r.fromPool).length,
    create_to_first_reply_ms: reply,
    create_answered_ms: summarize(runs.map((r) => r.answered)),
    bare_node_first_answer_ms: floor,
    ratio_to_floor: Math.round((reply.median / floor.median) * 100) / 100,
    phases_ms: Object.fromEntries(
      PHASES.map((phase) => [phase, summarize(runs.map((r) => r.phases[phase]))]),
    ) as Record<Phase, Summary>,
  };
}

type Entry = Partial<ReturnType<typeof summarizeRuns>> & { skipped?: string; failed?: string };

function rowsOf(variant: Variant, runtime: RuntimeKind, entry: Entry): Row[] {
  const figure = "Conversation create → first agent reply";
  const reply = entry.create_to_first_reply_ms;
  const floor = entry.bare_node_first_answer_ms;
  const ratio = entry.ratio_to_floor ?? Number.NaN;
  const target = variant === "warm" ? WARM_TARGET_RATIO : COLD_TARGET_RATIO;
  const judged = variant === "warm" || runtime === "process";
  const pooled = variant === "warm" ? `, ${entry.runs_from_pool}/${entry.runs} from the pool` : "";
  const main: Row = {
    figure,
    runtime,
    measure: `${variant}: p50 / p95 (n=${RUNS}), and p50 against the floor (a bare node start's first answer)`,
    value:
      !reply || !floor
        ? skipText(entry)
        : `${ms(reply.median)} / ${ms(reply.p95)}; floor ${ms(floor.median)} → ${ratio}×${pooled}`,
    ...(judged && reply ? { target: `≤ ${target}× the floor`, met: ratio <= target } : {}),
  };
  if (!entry.phases_ms) return [main];
  const phases = entry.phases_ms;
  return [
    main,
    {
      figure,
      runtime,
      measure: `${variant}: where the time goes, p50 of each phase`,
      value: `${PHASES.map((phase) => `${phase} ${ms(phases[phase].median)}`).join(" · ")} (the 201 after ${ms(entry.create_answered_ms?.median ?? Number.NaN)})`,
    },
  ];
}

/**
 * The environment of the floor's node: what a sandbox's agent server gets (PATH, HOME, LANG), not
 * the bench's own. An inherited NODE_EXTRA_CA_CERTS, set on many machines, makes node read and
 * parse the whole CA bundle at start (~45 ms here, more than node's own start): a floor started
 * with it is a slower node than any sandbox runs, and a ratio to it flatters.
 */
const FLOOR_ENV = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: tmpdir(), LANG: "C.UTF-8" };

/** A bare node HTTP server: spawn → its first answered request, in milliseconds (the floor). */
async function bareNodeFirstAnswer(): Promise<number> {
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [
      "-e",
      'const s=require("http").createServer((q,r)=>r.end("ok")).listen(0,"127.0.0.1",()=>console.log(s.address().port))',
    ],
    { stdio: ["ignore", "pipe", "inherit"], env: FLOOR_ENV },
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

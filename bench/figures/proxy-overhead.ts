import { type Cell, measureCell, measureInterleaved, type Side } from "../lib/cell";
import {
  ADMIN_KEY,
  type ControlPlane,
  type Json,
  removeDataDir,
  startControlPlane,
} from "../lib/control-plane";
import type { BenchContext, FigureResult, Row } from "../lib/figure";
import { ms } from "../lib/figure";
import { type Forwarder, startForwarder } from "../lib/forwarder";
import { CLK_TCK, commandLine, pidOfUrl } from "../lib/proc";
import { deleteAll } from "../lib/sandboxes";
import { settleEvents } from "../lib/settle";
import { type LoadTarget, runWrk, wrkVersion } from "../lib/wrk";
import { profileProxy } from "./proxy-profile";

const LEVELS = [1, 16];
const WARMUP_SECONDS = 1;
const SIDES = ["control_plane", "forwarder", "direct"] as const;
type SideName = (typeof SIDES)[number];
/** Each cell's seconds are split over this many rounds, the sides taking turns. */
const ROUNDS = 4;
const BODY = JSON.stringify({
  role: "user",
  content: [{ type: "text", text: "bench" }],
  run: false,
});
const TARGETS = { throughput: 0.8, cpu: 1.0, mainThreadUsPerEvent: 50 };

/**
 * Figure 1: the same send-message body, with wrk as the load generator, three ways against one
 * agent server: through the control plane (POST /app-conversations/{id}/send-message), through a
 * bare node:http + undici forwarder (lib/bare-forwarder.mjs, its own process) and straight to the
 * agent server's /events. Each side has its own conversation per level and a warm-up; then the
 * sides take turns for ROUNDS rounds (a shared machine's background load falls on each alike).
 * The CPU of the control plane, the agent server and the forwarder is read from /proc/<pid>/stat
 * before each run and after the control plane stored the run's events.
 */
export async function proxyOverhead(ctx: BenchContext): Promise<FigureResult> {
  const seconds = ctx.options.seconds;
  const perRound = Math.max(1, Math.round(seconds / ROUNDS));
  const cp = await startControlPlane({ runtime: "process" });
  let forwarder: Forwarder | null = null;
  try {
    const first = await createConversation(cp, null);
    const agentUrl = new URL(first.conversation_url).origin;
    const agentPid = pidOfUrl(agentUrl);
    forwarder = await startForwarder(agentUrl, first.session_api_key);
    const pids = { control_plane: cp.pid, agent_server: agentPid, forwarder: forwarder.pid };
    // The control plane's main thread alone: what following and storing events costs the loop
    // that serves requests (the target is per event, on the main thread).
    const sampled = { ...pids, control_plane_main_thread: { pid: cp.pid, tid: cp.pid } };
    const data: Record<string, unknown> = {
      load_generator: `${wrkVersion()}, 1 thread, keep-alive`,
      seconds_per_cell: perRound * ROUNDS,
      rounds: ROUNDS,
      warmup_seconds: WARMUP_SECONDS,
      body: BODY,
      clk_tck: CLK_TCK,
      processes: Object.fromEntries(
        Object.entries(pids).map(([name, pid]) => [name, { pid, command: commandLine(pid) }]),
      ),
    };
    const rows: Row[] = [];
    for (const connections of LEVELS) {
      const sides = {} as Record<SideName, Side>;
      const convs = {} as Record<SideName, Json>;
      for (const name of SIDES) {
        const conv = await createConversation(cp, first.sandbox_id);
        const target = targetOf(name, cp, forwarder, conv);
        await runWrk(target, connections, WARMUP_SECONDS);
        await settleEvents(cp.api, conv);
        sides[name] = { target, settle: () => settleEvents(cp.api, conv) };
        convs[name] = conv;
      }
      const directEventsBefore = await countEvents(cp, convs.direct);
      const cells = await measureInterleaved(sides, connections, ROUNDS, perRound, sampled);
      const directEvents = (await countEvents(cp, convs.direct)) - directEventsBefore;
      for (const name of SIDES) {
        const cell = cells[name];
        ctx.log(
          `proxy c=${connections} ${name}: ${Math.round(cell.rps)} req/s (rounds ${cell.rps_per_round.join(", ")}), ` +
            `p50 ${ms(cell.latency_ms.p50)}, CPU µs/req ${JSON.stringify(cell.cpu_us_per_request)}` +
            `${cell.failures ? `, ${cell.failures} failures` : ""}`,
        );
      }
      const ratios = ratiosOf(cells, directEvents);
      data[`c${connections}`] = { cells, ratios };
      rows.push(...rowsOf(connections, cells, ratios));
    }
    // What an authenticated request that forwards nothing costs the control plane.
    data.users_me_c16 = await measureCell(
      {
        url: `${cp.url}/api/v1/users/me`,
        method: "GET",
        headers: { authorization: `Bearer ${ADMIN_KEY}` },
      },
      16,
      Math.min(seconds, 4),
      { control_plane: cp.pid },
    );
    if (ctx.options.profile) {
      ctx.log("proxy overhead: profiling the control plane (--cpu-prof)");
      data.profile = await profileProxy(BODY, seconds);
    }
    return { key: "proxy_overhead", data, rows, notes: [note(perRound)] };
  } finally {
    await forwarder?.stop();
    await deleteAll(cp).catch(() => undefined);
    await cp.stop();
    removeDataDir(cp.dataDir);
  }
}

const note = (perRound: number) =>
  `**Proxy overhead**: one run, wrk (1 thread, keep-alive), ${WARMUP_SECONDS} s warm-up, then ${ROUNDS} ` +
  `rounds of ${perRound} s per cell, the three sides taking turns, each on its own conversation of ` +
  "the same agent server: send-message through the " +
  "control plane; the same body through a bare node:http + undici forwarder " +
  "(`bench/lib/bare-forwarder.mjs`, its own process); and straight to the agent server's `/events`. " +
  "CPU is utime + stime from `/proc/<pid>/stat` of each process, read before a run and after the " +
  "control plane has stored the run's events, so the control plane's share includes recording the " +
  "event each message leaves (what that alone costs is the last figure of the CPU row: the control " +
  "plane's CPU per message sent directly). The load generator shares the machine's cores.";

async function createConversation(cp: ControlPlane, sandboxId: string | null): Promise<Json> {
  const res = await cp.api(
    "POST",
    "/api/v1/app-conversations",
    sandboxId ? { sandbox_id: sandboxId } : {},
  );
  if (res.status !== 201) throw new Error(`create: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

function targetOf(side: SideName, cp: ControlPlane, forwarder: Forwarder, conv: Json): LoadTarget {
  const json = { "content-type": "application/json" };
  if (side === "control_plane") {
    return {
      url: `${cp.url}/api/v1/app-conversations/${conv.id}/send-message`,
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN_KEY}`, ...json },
      body: BODY,
    };
  }
  if (side === "forwarder") {
    return {
      url: `${forwarder.url}/forward/${conv.id}`,
      method: "POST",
      headers: json,
      body: BODY,
    };
  }
  return {
    url: `${conv.conversation_url}/events`,
    method: "POST",
    headers: { "x-session-api-key": conv.session_api_key, ...json },
    body: BODY,
  };
}

const r3 = (value: number) => Math.round(value * 1000) / 1000;

/** How many events the control plane has stored for a conversation. */
async function countEvents(cp: ControlPlane, conv: Json): Promise<number> {
  const res = await cp.api("GET", `/api/v1/conversation/${conv.id}/events/count`);
  if (res.status !== 200)
    throw new Error(`count events: ${res.status} ${JSON.stringify(res.body)}`);
  return Number(res.body);
}

function ratiosOf(cells: Record<SideName, Cell>, directEvents: number) {
  const cp = cells.control_plane;
  const fw = cells.forwarder;
  const cpu = (cell: Cell, name: string) => cell.cpu_us_per_request[name] ?? Number.NaN;
  return {
    throughput_control_plane_per_forwarder: r3(cp.rps / fw.rps),
    throughput_control_plane_per_direct: r3(cp.rps / cells.direct.rps),
    throughput_forwarder_per_direct: r3(fw.rps / cells.direct.rps),
    cpu_control_plane_per_agent_server: r3(cpu(cp, "control_plane") / cpu(cp, "agent_server")),
    cpu_forwarder_per_agent_server: r3(cpu(fw, "forwarder") / cpu(fw, "agent_server")),
    // Recording the events of messages that did not pass through it: the follower's share.
    control_plane_us_per_direct_message: cpu(cells.direct, "control_plane"),
    // The same on the main thread only, per event stored (the figure's target: ≤ 50 µs).
    events_per_direct_message: r3(directEvents / cells.direct.ok),
    control_plane_main_thread_us_per_event: r3(
      ((cells.direct.cpu_ms.control_plane_main_thread ?? Number.NaN) * 1000) / directEvents,
    ),
    control_plane_main_thread_us_per_proxied_message: cpu(cp, "control_plane_main_thread"),
    // The same ratio without that share (an estimate: recording costs more per message at the
    // lower rate a proxied run reaches).
    cpu_control_plane_minus_recording_per_agent_server: r3(
      (cpu(cp, "control_plane") - cpu(cells.direct, "control_plane")) / cpu(cp, "agent_server"),
    ),
    added_p50_ms_vs_forwarder: r3(cp.latency_ms.p50 - fw.latency_ms.p50),
    added_p50_ms_vs_direct: r3(cp.latency_ms.p50 - cells.direct.latency_ms.p50),
  };
}

function rowsOf(
  c: number,
  cells: Record<SideName, Cell>,
  ratios: ReturnType<typeof ratiosOf>,
): Row[] {
  const rps = (cell: Cell) => Math.round(cell.rps);
  const us = (cell: Cell, name: string) => Math.round(cell.cpu_us_per_request[name] ?? Number.NaN);
  const { control_plane: cp, forwarder: fw, direct } = cells;
  const failures = SIDES.filter((side) => cells[side].failures > 0)
    .map((side) => `${side}: ${cells[side].failures} failed`)
    .join(", ");
  const row = (measure: string, value: string) => ({
    figure: "Proxy overhead",
    runtime: "process",
    measure,
    value,
  });
  return [
    row(
      `send-message req/s, c=${c}: control plane / bare forwarder / direct`,
      `${rps(cp)} / ${rps(fw)} / ${rps(direct)}${failures ? ` (${failures})` : ""}`,
    ),
    {
      ...row(
        `throughput control plane ÷ bare forwarder, c=${c}`,
        ratios.throughput_control_plane_per_forwarder.toFixed(2),
      ),
      target: `≥ ${TARGETS.throughput}`,
      met: ratios.throughput_control_plane_per_forwarder >= TARGETS.throughput,
    },
    row(
      `CPU µs per message, c=${c}: control plane / agent server (proxied); forwarder / agent server (bare); control plane when sent direct`,
      `${us(cp, "control_plane")} / ${us(cp, "agent_server")}; ${us(fw, "forwarder")} / ${us(fw, "agent_server")}; ${Math.round(ratios.control_plane_us_per_direct_message)}`,
    ),
    {
      ...row(
        `control-plane main-thread CPU per stored event (messages sent direct), c=${c}`,
        `${Math.round(ratios.control_plane_main_thread_us_per_event)} µs (${ratios.events_per_direct_message} events per message)`,
      ),
      target: `≤ ${TARGETS.mainThreadUsPerEvent} µs`,
      met: ratios.control_plane_main_thread_us_per_event <= TARGETS.mainThreadUsPerEvent,
    },
    {
      ...row(
        `control-plane CPU ÷ agent-server CPU per proxied message, c=${c}`,
        ratios.cpu_control_plane_per_agent_server.toFixed(2),
      ),
      target: `≤ ${TARGETS.cpu.toFixed(1)}`,
      met: ratios.cpu_control_plane_per_agent_server <= TARGETS.cpu,
    },
    row(
      `p50 / p99 latency, c=${c}: control plane; bare forwarder; direct`,
      `${ms(cp.latency_ms.p50)} / ${ms(cp.latency_ms.p99)}; ${ms(fw.latency_ms.p50)} / ${ms(fw.latency_ms.p99)}; ${ms(direct.latency_ms.p50)} / ${ms(direct.latency_ms.p99)}`,
    ),
  ];
}

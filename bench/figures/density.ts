import { removeDataDir, startControlPlane } from "../lib/control-plane";
import type { BenchContext, FigureResult, Row } from "../lib/figure";
import { ms } from "../lib/figure";
import { benchPostgres } from "../lib/postgres";
import { CLK_TCK, cpuTicks, memoryMib, residentMib } from "../lib/proc";
import { type SandboxFootprint, sandboxFootprints } from "../lib/sandbox-memory";
import { deleteAll, startRunning } from "../lib/sandboxes";
import { type Summary, sleep, summarize } from "../lib/stats";
import { createToFirstReply } from "./first-reply";

/** Fewer (BENCH_DENSITY_SANDBOXES) and a shorter quiet stretch while iterating on a shared machine. */
const SANDBOXES = Number(process.env.BENCH_DENSITY_SANDBOXES ?? 200);
/** The quiet stretch whose CPU is measured, every sandbox RUNNING and nothing asked of any. */
const QUIET_MS = Number(process.env.BENCH_DENSITY_QUIET_S ?? 60) * 1000;
/** `sqlite` leaves PostgreSQL out. */
const STORES = (process.env.BENCH_DENSITY_STORES ?? "sqlite,postgresql").split(",");
const AT_ONCE = 5;
/** After starting (or starting sandboxes), before memory is read: the control plane at rest. */
const SETTLE_MS = 10_000;
/** Conversation creates → first reply timed with no other sandbox, and beside all the others. */
const REPLIES = 5;

const RSS_IDLE_TARGET_MIB = 100;
const RSS_LOADED_TARGET_MIB = 150;
const QUIET_CPU_TARGET_PERCENT = 2;
const LAST_REPLY_RATIO_TARGET = 1.5;

const round1 = (value: number) => Math.round(value * 10) / 10;

/**
 * Figure 7: what the control plane costs at rest — its memory idle and with SANDBOXES RUNNING
 * process sandboxes, its CPU over a quiet stretch while they sit idle (supervision should cost
 * what changes, not how many run), and a conversation's create → first reply in the first
 * sandbox and in the last — and what each sandbox costs the host: private memory (USS, what
 * ending it gives back) of its agent server, of its networking (the namespace's forwarder) and
 * of its sandboxing (bubblewrap), RSS beside it. On SQLite and on PostgreSQL.
 */
export async function density(ctx: BenchContext): Promise<FigureResult> {
  const postgres = STORES.includes("postgresql") ? benchPostgres(ctx.log) : null;
  const stores = [
    ...(STORES.includes("sqlite") ? [{ name: "sqlite", env: {} as Record<string, string> }] : []),
    ...(postgres ? [{ name: "postgresql", env: { DATABASE_URL: postgres.url } }] : []),
  ];
  const data: Record<string, unknown> = { running_sandboxes: SANDBOXES, quiet_ms: QUIET_MS };
  const rows: Row[] = [];
  try {
    for (const store of stores) {
      const measured = await measureDensity(ctx, store.env);
      data[store.name] = measured;
      rows.push(...rowsOf(store.name, measured));
    }
  } finally {
    postgres?.stop();
  }
  return {
    key: "density",
    data,
    rows,
    notes: [
      `**Density**: one control plane on the process runtime; its RSS ${SETTLE_MS / 1000} s after its start and ${SETTLE_MS / 1000} s after ${SANDBOXES} sandboxes are RUNNING, its CPU (utime + stime) over ${QUIET_MS / 1000} s while they sit idle. Per sandbox, private memory (USS, from smaps_rollup) of the agent server, of the forwarder of its network namespace (pasta; a veth link has none) and of bubblewrap's processes; RSS counts the shared pages of node's (or pasta's) binary once per process. Create → first reply: ${REPLIES} conversations (shell agent, each starting its own sandbox) beside ${SANDBOXES - 1} running sandboxes after the quiet stretch, then ${REPLIES} once every other sandbox is deleted; medians. The control plane's memory and CPU are read before any conversation (its ingest worker starts with the first one).`,
    ],
  };
}

async function measureDensity(ctx: BenchContext, env: Record<string, string>) {
  const cp = await startControlPlane({
    runtime: "process",
    env: { MAX_RUNNING_SANDBOXES: String(SANDBOXES + 10), ...env },
  });
  const replies = async (label: string) => {
    const times: number[] = [];
    for (let i = 0; i < REPLIES; i++) {
      times.push((await createToFirstReply(cp, `${label}-${i}`)).total);
    }
    return times.map(round1);
  };
  try {
    await sleep(SETTLE_MS);
    const idleRss = residentMib(cp.pid);
    const idlePrivate = memoryMib(cp.pid).private;
    const ids: string[] = [(await startRunning(cp)).id];
    await sleep(3000);
    const [one] = sandboxFootprints(cp.dataDir, ids);
    while (ids.length < SANDBOXES - 1) {
      const batch = Math.min(AT_ONCE, SANDBOXES - 1 - ids.length);
      const started = await Promise.all(Array.from({ length: batch }, () => startRunning(cp)));
      ids.push(...started.map((s) => s.id as string));
    }
    ids.push((await startRunning(cp)).id);
    await sleep(SETTLE_MS);
    // Idle as the sandboxes are: no conversation yet, so no ingest worker (it starts with the
    // first conversation followed).
    const loadedRss = residentMib(cp.pid);
    const loadedPrivate = memoryMib(cp.pid).private;
    const ticksBefore = cpuTicks(cp.pid);
    const quietStart = performance.now();
    await sleep(QUIET_MS);
    const quietCpuPercent = round1(
      ((cpuTicks(cp.pid) - ticksBefore) / CLK_TCK / ((performance.now() - quietStart) / 1000)) *
        100,
    );
    const afterQuietRss = residentMib(cp.pid);
    const footprints = sandboxFootprints(cp.dataDir, ids);
    const perSandbox = byPart(footprints);
    // The last sandbox makes room for the conversations' own: each runs beside SANDBOXES - 1.
    await cp.api("DELETE", `/api/v1/sandboxes/${ids.pop()}`);
    const lastReplies = await replies("last");
    const withConversationsRss = residentMib(cp.pid);
    await deleteAll(cp);
    const firstReplies = await replies("first");
    ctx.log(
      `density: control plane ${idleRss} MiB idle, ${loadedRss} MiB with ${SANDBOXES} (${afterQuietRss} after the quiet stretch at ${quietCpuPercent} % CPU; ${withConversationsRss} after conversations); per sandbox ${perSandbox.private_total.median} MiB private (agent server ${perSandbox.agent_server_private.median}, networking ${perSandbox.networking_private.median}, sandboxing ${perSandbox.sandboxing_private.median}); first reply ${summarize(firstReplies).median} ms alone, ${summarize(lastReplies).median} ms beside ${SANDBOXES - 1}`,
    );
    return {
      control_plane: {
        rss_mib: {
          idle: idleRss,
          with_running: loadedRss,
          with_running_after_quiet: afterQuietRss,
          with_running_after_conversations: withConversationsRss,
        },
        private_mib: { idle: idlePrivate, with_running: loadedPrivate },
        quiet_cpu_percent_of_one_core: quietCpuPercent,
      },
      create_to_first_reply_ms: {
        only_sandbox: { ...summarize(firstReplies), runs: firstReplies },
        last_sandbox: { ...summarize(lastReplies), runs: lastReplies },
      },
      one_idle_sandbox_mib: one,
      per_sandbox_mib: perSandbox,
      all_sandboxes_mib: {
        agent_server_private: sum(footprints.map((f) => f.agent_server.private)),
        agent_server_rss: sum(footprints.map((f) => f.agent_server.rss)),
        networking_private: sum(footprints.map((f) => f.networking.private)),
        sandboxing_private: sum(footprints.map((f) => f.sandboxing.private)),
        private_total: sum(footprints.map((f) => f.private_total)),
      },
    };
  } finally {
    await cp.stop();
    removeDataDir(cp.dataDir);
  }
}

const sum = (values: number[]) => Math.round(values.reduce((a, b) => a + b, 0));

function byPart(footprints: SandboxFootprint[]) {
  return {
    agent_server_private: summarize(footprints.map((f) => f.agent_server.private)),
    agent_server_rss: summarize(footprints.map((f) => f.agent_server.rss)),
    networking_private: summarize(footprints.map((f) => f.networking.private)),
    networking_rss: summarize(footprints.map((f) => f.networking.rss)),
    sandboxing_private: summarize(footprints.map((f) => f.sandboxing.private)),
    private_total: summarize(footprints.map((f) => f.private_total)),
  };
}

type Measured = Awaited<ReturnType<typeof measureDensity>>;

function rowsOf(store: string, m: Measured): Row[] {
  const runtime = `process, ${store}`;
  const rss = m.control_plane.rss_mib;
  const cpu = m.control_plane.quiet_cpu_percent_of_one_core;
  const per = m.per_sandbox_mib;
  const all = m.all_sandboxes_mib;
  const replies = m.create_to_first_reply_ms as Record<string, Summary>;
  const n = SANDBOXES;
  return [
    {
      figure: "Density",
      runtime,
      measure: "control plane RSS, idle",
      value: `${rss.idle} MiB (private ${m.control_plane.private_mib.idle} MiB)`,
      target: `≤ ${RSS_IDLE_TARGET_MIB} MiB`,
      met: rss.idle <= RSS_IDLE_TARGET_MIB,
    },
    {
      figure: "Density",
      runtime,
      measure: `control plane RSS with ${n} running sandboxes`,
      value: `${rss.with_running} MiB (private ${m.control_plane.private_mib.with_running} MiB; ${rss.with_running_after_quiet} MiB after the quiet stretch; ${rss.with_running_after_conversations} MiB once conversations ran, the ingest worker started)`,
      target: `≤ ${RSS_LOADED_TARGET_MIB} MiB`,
      met:
        rss.with_running <= RSS_LOADED_TARGET_MIB &&
        rss.with_running_after_quiet <= RSS_LOADED_TARGET_MIB,
    },
    {
      figure: "Density",
      runtime,
      measure: `control plane CPU over ${QUIET_MS / 1000} s, ${n} idle sandboxes`,
      value: `${cpu} % of one core`,
      target: `≤ ${QUIET_CPU_TARGET_PERCENT} %`,
      met: cpu <= QUIET_CPU_TARGET_PERCENT,
    },
    {
      figure: "Density",
      runtime,
      measure: `create → first reply, p50 (n=${REPLIES}): the only sandbox / the ${n}th`,
      value: `${ms(replies.only_sandbox?.median ?? Number.NaN)} / ${ms(replies.last_sandbox?.median ?? Number.NaN)}`,
      target: `the ${n}th ≤ ${LAST_REPLY_RATIO_TARGET}× the only`,
      met:
        (replies.last_sandbox?.median ?? Number.POSITIVE_INFINITY) <=
        LAST_REPLY_RATIO_TARGET * (replies.only_sandbox?.median ?? 0),
    },
    {
      figure: "Density",
      runtime,
      measure:
        "private memory (USS) per idle sandbox, p50: agent server + networking (pasta; none with veth) + sandboxing (bwrap) = in all",
      value: `${per.agent_server_private.median} + ${per.networking_private.median} + ${per.sandboxing_private.median} = ${per.private_total.median} MiB (agent server RSS ${per.agent_server_rss.median} MiB)`,
    },
    {
      figure: "Density",
      runtime,
      measure: `private memory (USS) of the ${n} sandboxes: agent servers + networking + sandboxing = in all`,
      value: `${all.agent_server_private} + ${all.networking_private} + ${all.sandboxing_private} = ${all.private_total} MiB`,
    },
  ];
}

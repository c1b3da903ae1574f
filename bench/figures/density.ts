import { removeDataDir, startControlPlane } from "../lib/control-plane";
import type { BenchContext, FigureResult } from "../lib/figure";
import { CLK_TCK, cpuTicks, memoryMib, pidOfUrl, residentMib } from "../lib/proc";
import { deleteAll, startRunning } from "../lib/sandboxes";
import { sleep, summarize } from "../lib/stats";

const SANDBOXES = 200;
const AT_ONCE = 5;
/** After starting (or starting sandboxes), before memory is read: the control plane at rest. */
const SETTLE_MS = 10_000;
/** The quiet stretch whose CPU is measured, every sandbox RUNNING and nothing asked of any. */
const QUIET_MS = 60_000;

const RSS_IDLE_TARGET_MIB = 100;
const RSS_LOADED_TARGET_MIB = 150;
const QUIET_CPU_TARGET_PERCENT = 2;

/**
 * Figure 7: what the control plane costs at rest — its memory idle and with 200 RUNNING process
 * sandboxes, and its CPU over a quiet minute while those 200 sit idle (supervision should cost
 * what changes, not how many run) — and what each agent server costs: private memory (USS,
 * what ending it gives back) first, RSS beside it.
 */
export async function density(ctx: BenchContext): Promise<FigureResult> {
  const cp = await startControlPlane({
    runtime: "process",
    env: { MAX_RUNNING_SANDBOXES: String(SANDBOXES + 10) },
  });
  try {
    await sleep(SETTLE_MS);
    const idleRss = residentMib(cp.pid);
    const idlePrivate = memoryMib(cp.pid).private;
    // The agent server is the process listening on the sandbox's port (under bubblewrap the
    // runtime's recorded pid is bwrap's, not the agent server's).
    const urls: string[] = [(await startRunning(cp)).agent_server_url];
    await sleep(3000);
    const onePid = pidOfUrl(urls[0] ?? "");
    const one = { rss: residentMib(onePid), private: memoryMib(onePid).private };
    while (urls.length < SANDBOXES) {
      const batch = Math.min(AT_ONCE, SANDBOXES - urls.length);
      const started = await Promise.all(Array.from({ length: batch }, () => startRunning(cp)));
      urls.push(...started.map((s) => s.agent_server_url as string));
    }
    await sleep(SETTLE_MS);
    const loadedRss = residentMib(cp.pid);
    const loadedPrivate = memoryMib(cp.pid).private;
    const ticksBefore = cpuTicks(cp.pid);
    const quietStart = performance.now();
    await sleep(QUIET_MS);
    const quietCpuPercent =
      Math.round(
        ((cpuTicks(cp.pid) - ticksBefore) / CLK_TCK / ((performance.now() - quietStart) / 1000)) *
          1000,
      ) / 10;
    const afterQuietRss = residentMib(cp.pid);
    const pids = urls.map(pidOfUrl);
    const privates = pids.map((pid) => memoryMib(pid).private);
    const rss = pids.map(residentMib);
    // RSS counts the node binary's shared pages once per process; private memory does not.
    const privateTotal = Math.round(privates.reduce((a, b) => a + b, 0));
    const rssTotal = Math.round(rss.reduce((a, b) => a + b, 0));
    ctx.log(
      `density: control plane ${idleRss} MiB idle, ${loadedRss} MiB with ${SANDBOXES} (${afterQuietRss} after a quiet minute at ${quietCpuPercent} % CPU); agent servers ${privateTotal} MiB private in all`,
    );
    await deleteAll(cp);
    return {
      key: "density",
      data: {
        running_sandboxes: SANDBOXES,
        control_plane: {
          rss_mib: {
            idle: idleRss,
            with_running: loadedRss,
            with_running_after_quiet_minute: afterQuietRss,
          },
          private_mib: { idle: idlePrivate, with_running: loadedPrivate },
          quiet_minute_cpu_percent_of_one_core: quietCpuPercent,
        },
        one_idle_agent_server_mib: one,
        agent_servers_private_mib: { ...summarize(privates), total: privateTotal },
        agent_servers_rss_mib: { ...summarize(rss), total: rssTotal },
      },
      rows: [
        {
          figure: "Density",
          runtime: "process",
          measure: "control plane RSS, idle",
          value: `${idleRss} MiB (private ${idlePrivate} MiB)`,
          target: `≤ ${RSS_IDLE_TARGET_MIB} MiB`,
          met: idleRss <= RSS_IDLE_TARGET_MIB,
        },
        {
          figure: "Density",
          runtime: "process",
          measure: `control plane RSS with ${SANDBOXES} running sandboxes`,
          value: `${loadedRss} MiB (private ${loadedPrivate} MiB; ${afterQuietRss} MiB after the quiet minute)`,
          target: `≤ ${RSS_LOADED_TARGET_MIB} MiB`,
          met: loadedRss <= RSS_LOADED_TARGET_MIB && afterQuietRss <= RSS_LOADED_TARGET_MIB,
        },
        {
          figure: "Density",
          runtime: "process",
          measure: `control plane CPU over a quiet minute, ${SANDBOXES} idle sandboxes`,
          value: `${quietCpuPercent} % of one core`,
          target: `≤ ${QUIET_CPU_TARGET_PERCENT} %`,
          met: quietCpuPercent <= QUIET_CPU_TARGET_PERCENT,
        },
        {
          figure: "Density",
          runtime: "process",
          measure: "private memory (USS) of one idle agent server / RSS",
          value: `${one.private} / ${one.rss} MiB`,
        },
        {
          figure: "Density",
          runtime: "process",
          measure: `private memory (USS) of the ${SANDBOXES} agent servers, in all / RSS`,
          value: `${privateTotal} / ${rssTotal} MiB`,
        },
      ],
    };
  } finally {
    await cp.stop();
    removeDataDir(cp.dataDir);
  }
}

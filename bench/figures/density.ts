import { removeDataDir, startControlPlane } from "../lib/control-plane";
import type { BenchContext, FigureResult } from "../lib/figure";
import { memoryMib, pidOfUrl, residentMib } from "../lib/proc";
import { deleteAll, startRunning } from "../lib/sandboxes";
import { sleep, summarize } from "../lib/stats";

const SANDBOXES = 50;
const AT_ONCE = 5;

/**
 * Figure 7: resident memory (VmRSS) of one idle agent server, and of the control plane with 50
 * RUNNING process sandboxes (MAX_RUNNING_SANDBOXES=60); the agent servers' private memory too.
 */
export async function density(ctx: BenchContext): Promise<FigureResult> {
  const cp = await startControlPlane({ runtime: "process", env: { MAX_RUNNING_SANDBOXES: "60" } });
  try {
    await sleep(1000);
    const controlPlaneIdleMib = residentMib(cp.pid);
    // The agent server is the process listening on the sandbox's port (under bubblewrap the
    // runtime's recorded pid is bwrap's, not the agent server's).
    const urls: string[] = [(await startRunning(cp)).agent_server_url];
    await sleep(3000);
    const oneAgentServerMib = residentMib(pidOfUrl(urls[0] ?? ""));
    while (urls.length < SANDBOXES) {
      const batch = Math.min(AT_ONCE, SANDBOXES - urls.length);
      const started = await Promise.all(Array.from({ length: batch }, () => startRunning(cp)));
      urls.push(...started.map((s) => s.agent_server_url as string));
    }
    await sleep(5000);
    const pids = urls.map(pidOfUrl);
    const memory = pids.map(memoryMib);
    const agentServers = pids.map(residentMib);
    const controlPlaneMib = residentMib(cp.pid);
    const total = agentServers.reduce((a, b) => a + b, 0);
    // RSS counts the node binary's shared pages once per process; private memory does not.
    const privateTotal = memory.reduce((sum, m) => sum + m.private, 0);
    ctx.log(
      `density: agent server ${oneAgentServerMib} MiB idle; control plane ${controlPlaneIdleMib} → ${controlPlaneMib} MiB with ${SANDBOXES}`,
    );
    await deleteAll(cp);
    return {
      key: "density",
      data: {
        one_idle_agent_server_rss_mib: oneAgentServerMib,
        control_plane_rss_mib: {
          idle_no_sandboxes: controlPlaneIdleMib,
          with_50_running: controlPlaneMib,
        },
        agent_servers_rss_mib: { ...summarize(agentServers), total: Math.round(total) },
        agent_servers_private_mib: {
          ...summarize(memory.map((m) => m.private)),
          total: Math.round(privateTotal),
        },
        running_sandboxes: SANDBOXES,
      },
      rows: [
        {
          figure: "Density",
          runtime: "process",
          measure: "RSS of one idle agent server",
          value: `${oneAgentServerMib} MiB`,
        },
        {
          figure: "Density",
          runtime: "process",
          measure: `RSS of the control plane: idle / with ${SANDBOXES} running sandboxes`,
          value: `${controlPlaneIdleMib} / ${controlPlaneMib} MiB (agent servers: ${Math.round(total)} MiB in all)`,
        },
        {
          figure: "Density",
          runtime: "process",
          measure: `private memory (USS) of the ${SANDBOXES} agent servers, in all`,
          value: `${Math.round(privateTotal)} MiB`,
        },
      ],
    };
  } finally {
    await cp.stop();
    removeDataDir(cp.dataDir);
  }
}

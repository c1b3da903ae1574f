import { readFileSync } from "node:fs";
import path from "node:path";
import { commandLine, memoryMib, processesByArgument, processTree, residentMib } from "./proc";

/** Private memory (USS) and RSS of some processes, summed, in MiB. */
export interface Footprint {
  private: number;
  rss: number;
}

/** What one process sandbox holds, by part. */
export interface SandboxFootprint {
  /** The agent server (and whatever runs below it). */
  agent_server: Footprint;
  /** The namespace's forwarder (pasta); zero without a network namespace. */
  networking: Footprint;
  /** What wraps the agent server (bubblewrap's processes); zero without isolation. */
  sandboxing: Footprint;
  /** Private memory of all three. */
  private_total: number;
}

const round1 = (value: number) => Math.round(value * 10) / 10;

function footprint(pids: number[]): Footprint {
  let privateMib = 0;
  let rss = 0;
  for (const pid of pids) {
    try {
      privateMib += memoryMib(pid).private;
      rss += residentMib(pid);
    } catch {
      // gone meanwhile
    }
  }
  return { private: round1(privateMib), rss: round1(rss) };
}

/**
 * Each process sandbox's memory by part, from its runtime record (`sandbox.json`: the pid it
 * started, the network namespace). The process listening on the sandbox's port is no guide: with
 * a network namespace it is the forwarder, not the agent server.
 */
export function sandboxFootprints(dataDir: string, ids: string[]): SandboxFootprint[] {
  const forwarders = processesByArgument("--netns");
  return ids.map((id) => {
    const state = JSON.parse(
      readFileSync(path.join(dataDir, "sandboxes", id, "sandbox.json"), "utf8"),
    ) as { pid: number; network?: { namespace?: string } | null };
    const tree = processTree(state.pid);
    const agent = tree.find((pid) => commandLine(pid).includes("agent-server"));
    if (agent === undefined) throw new Error(`no agent server below pid ${state.pid} (${id})`);
    const agentTree = processTree(agent);
    const namespace = state.network?.namespace;
    const forwarder = namespace ? forwarders.get(`/run/netns/${namespace}`) : undefined;
    const parts = {
      agent_server: footprint(agentTree),
      networking: footprint(forwarder === undefined ? [] : [forwarder]),
      sandboxing: footprint(tree.filter((pid) => !agentTree.includes(pid))),
    };
    return {
      ...parts,
      private_total: round1(
        parts.agent_server.private + parts.networking.private + parts.sandboxing.private,
      ),
    };
  });
}

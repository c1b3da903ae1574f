import type { RuntimeLogger } from "../../types";
import { detectCgroups } from "./detect-cgroups";
import {
  cgroupNameFor,
  createSandboxCgroup,
  hasLimits,
  parentsFor,
  readOomKills,
  removeSandboxCgroup,
  type SandboxLimits,
} from "./sandbox-cgroup";

/** The cgroup of one run: its CPU share, and its limits when it has them. */
export interface RunCgroup {
  name: string;
  /** The files the launcher joins before it execs (v1 `tasks`, v2 `cgroup.procs`). */
  joinFiles: string[];
  /** OOM kills counted in the cgroup before this run (a reused cgroup keeps its count). */
  oomKillsBefore: number;
}

export interface RunCgroupInput {
  sandboxDir: string;
  sandboxId: string;
  limits: SandboxLimits;
  /** The CPU weight of all sandboxes together (ProcessRuntimeSettings.sandboxCpuWeight). */
  cpuWeight: number;
}

/**
 * Puts a run into a cgroup where cgroups can be used here: every run for its CPU share, a run
 * with limits for those too. Where they cannot, the run goes ahead without; a run whose limits
 * are not enforced says so in the log (the runtime's README says what is enforced where). The
 * two are independent: a machine may give the CPU share without limits, or the reverse.
 */
export async function prepareRunCgroup(
  input: RunCgroupInput,
  logger: RuntimeLogger,
): Promise<RunCgroup | null> {
  const { sandboxDir, sandboxId, limits } = input;
  const cgroups = await detectCgroups();
  const limited = hasLimits(limits);
  if (limited && !cgroups.limits.usable) {
    logger.warn(
      { sandboxId, limits, reason: cgroups.limits.reason },
      "sandbox limits not enforced",
    );
  }
  const parents = parentsFor(cgroups, limited);
  if (parents.length === 0) return null;
  const name = cgroupNameFor(sandboxDir, sandboxId);
  try {
    const joinFiles = await createSandboxCgroup(parents, name, limits, input.cpuWeight);
    return { name, joinFiles, oomKillsBefore: await readOomKills(parents, name) };
  } catch (error) {
    // Limits are not dropped quietly: the launch fails. A CPU share alone is not worth a failed
    // start; the sandbox runs as it would without cgroups (delete removes what was made).
    if (limited) throw error;
    logger.warn({ sandboxId, err: error }, "sandbox runs without its cpu cgroup");
    return null;
  }
}

/** Removes the sandbox's cgroup; its processes must be gone. */
export async function removeRunCgroup(name: string): Promise<void> {
  await removeSandboxCgroup(await detectCgroups(), name);
}

/** " (out of memory: ...)" when the kernel killed a process of the run for its memory limit. */
export async function describeOom(cgroup: RunCgroup, limits: SandboxLimits): Promise<string> {
  if (limits.memoryMb === undefined) return "";
  const cgroups = await detectCgroups();
  const kills = (await readOomKills(cgroups.parents, cgroup.name)) - cgroup.oomKillsBefore;
  if (kills <= 0) return "";
  return ` (out of memory: the sandbox's limit is ${limits.memoryMb} MB)`;
}

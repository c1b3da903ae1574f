import type { RuntimeLogger } from "../../types";
import { detectCgroups } from "./detect-cgroups";
import {
  cgroupNameFor,
  createSandboxCgroup,
  hasLimits,
  readOomKills,
  removeSandboxCgroup,
  type SandboxLimits,
} from "./sandbox-cgroup";

/** The cgroup of one run, when its limits are enforced. */
export interface RunCgroup {
  name: string;
  /** The files the launcher joins before it execs (v1 `tasks`, v2 `cgroup.procs`). */
  joinFiles: string[];
  /** OOM kills counted in the cgroup before this run (a reused cgroup keeps its count). */
  oomKillsBefore: number;
}

/**
 * Puts a run's limits into a cgroup, when there are limits and cgroups can be used here; when
 * they cannot, the run goes ahead without them and the log says so (the runtime's README says
 * what is enforced where). Nothing is probed for sandboxes without limits.
 */
export async function prepareRunCgroup(
  sandboxDir: string,
  sandboxId: string,
  limits: SandboxLimits,
  logger: RuntimeLogger,
): Promise<RunCgroup | null> {
  if (!hasLimits(limits)) return null;
  const cgroups = await detectCgroups();
  if (!cgroups.usable) {
    logger.warn({ sandboxId, limits, reason: cgroups.reason }, "sandbox limits not enforced");
    return null;
  }
  const name = cgroupNameFor(sandboxDir, sandboxId);
  const joinFiles = await createSandboxCgroup(cgroups, name, limits);
  return { name, joinFiles, oomKillsBefore: await readOomKills(cgroups, name) };
}

/** Removes the sandbox's cgroup; its processes must be gone. */
export async function removeRunCgroup(name: string): Promise<void> {
  const cgroups = await detectCgroups();
  if (cgroups.usable) await removeSandboxCgroup(cgroups, name);
}

/** " (out of memory: ...)" when the kernel killed a process of the run for its memory limit. */
export async function describeOom(cgroup: RunCgroup, limits: SandboxLimits): Promise<string> {
  const cgroups = await detectCgroups();
  if (!cgroups.usable) return "";
  const kills = (await readOomKills(cgroups, cgroup.name)) - cgroup.oomKillsBefore;
  if (kills <= 0) return "";
  return ` (out of memory: the sandbox's limit is ${limits.memoryMb} MB)`;
}

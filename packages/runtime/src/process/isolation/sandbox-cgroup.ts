import { createHash } from "node:crypto";
import { mkdir, readFile, rmdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { type CgroupParent, type CgroupSupport, enableControllers } from "./detect-cgroups";

/** What a sandbox's cgroup enforces; a missing value is no limit. */
export interface SandboxLimits {
  pids?: number;
  memoryMb?: number;
}

export function hasLimits(limits: SandboxLimits): boolean {
  return limits.pids !== undefined || limits.memoryMb !== undefined;
}

/**
 * The cgroup name of one sandbox: its id plus a hash of its directory, so that two control
 * planes with different data directories never share one.
 */
export function cgroupNameFor(sandboxDir: string, sandboxId: string): string {
  const hash = createHash("sha256").update(sandboxDir).digest("hex").slice(0, 8);
  return `${sandboxId}-${hash}`;
}

/**
 * The parents a sandbox's cgroup goes below: the cpu one for every sandbox, the pids and memory
 * ones when it has limits (a v2 parent carries all three).
 */
export function parentsFor(cgroups: CgroupSupport, limited: boolean): CgroupParent[] {
  return cgroups.parents.filter((parent) =>
    parent.controllers.some((controller) => controller === "cpu" || limited),
  );
}

/**
 * The CPU weight of all sandboxes together (the `sandbox-server` parent) against the control
 * plane, given as a v2 `cpu.weight` (the control plane's is the default, 100): v1's `cpu.shares`
 * are the same ratio to its default 1024.
 */
export function cpuWeightFile(version: 1 | 2, weight: number): { file: string; value: string } {
  if (version === 2) return { file: "cpu.weight", value: String(weight) };
  return { file: "cpu.shares", value: String(Math.max(2, Math.round((weight * 1024) / 100))) };
}

/**
 * Creates (or reuses, on a restart) the sandbox's cgroup below each of `parents`, writes the
 * parent's CPU weight and the sandbox's limits (each sandbox keeps the default CPU weight, so
 * sandboxes are fair among themselves), and returns the files the launcher must put the
 * sandbox's first process into — before it forks, so that nothing of the sandbox starts
 * outside: v1's `tasks` (the launcher writes `0`, itself, single-threaded), v2's `cgroup.procs`
 * (it writes its pid). Why v1's `tasks`: a write to `cgroup.procs` (or of a pid) takes the
 * kernel's global threadgroup lock for writing, which waits for an RCU grace period — 6–16 ms
 * on the development VM at every start; moving the writing thread itself (`0` into `tasks`)
 * skips that lock (kernel/cgroup/cgroup.c, cgroup_procs_write_start) and takes ~0.3 ms.
 * Memory is RAM plus swap: swap is not a way around the limit.
 */
export async function createSandboxCgroup(
  parents: CgroupParent[],
  name: string,
  limits: SandboxLimits,
  cpuWeight: number,
): Promise<string[]> {
  // Without limits (a v2 parent that has the controllers anyway) the fresh cgroup's defaults
  // stand: a sandbox's limits never change, so a reused one has none either.
  const limited = hasLimits(limits);
  const joinFiles: string[] = [];
  for (const parent of parents) {
    const dir = await makeChild(parent, name, cpuWeight);
    for (const controller of limited ? parent.controllers : []) {
      if (controller === "pids") await writeLimit(dir, "pids.max", String(limits.pids ?? "max"));
      else if (controller === "memory") {
        await writeMemoryLimit(parent.version, dir, limits.memoryMb);
      }
    }
    joinFiles.push(path.join(dir, parent.version === 1 ? "tasks" : "cgroup.procs"));
  }
  return joinFiles;
}

/**
 * Removes the sandbox's cgroups, then each parent if no other sandbox uses it. Whatever is still
 * in a sandbox's cgroup belongs to that sandbox and is killed first (the cgroup holds every
 * process forked inside it, also one that left the runtime's view); a dying process keeps a
 * cgroup busy for a moment.
 */
export async function removeSandboxCgroup(cgroups: CgroupSupport, name: string): Promise<void> {
  for (const parent of cgroups.parents) {
    const dir = path.join(parent.dir, name);
    const procs = await readFile(path.join(dir, "cgroup.procs"), "utf8").catch(() => "");
    for (const pid of procs.split("\n").filter(Boolean)) killQuietly(Number(pid));
    await removeDir(dir, 2000);
    await rmdir(parent.dir).catch(() => undefined);
  }
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // Gone already.
  }
}

/** How many processes of the sandbox the kernel killed for lack of memory so far. */
export async function readOomKills(parents: CgroupParent[], name: string): Promise<number> {
  const parent = parents.find((candidate) => candidate.controllers.includes("memory"));
  if (!parent) return 0;
  const file = parent.version === 2 ? "memory.events" : "memory.oom_control";
  const text = await readFile(path.join(parent.dir, name, file), "utf8").catch(() => "");
  const match = /^oom_kill (\d+)$/m.exec(text);
  return match ? Number(match[1]) : 0;
}

async function makeChild(parent: CgroupParent, name: string, cpuWeight: number) {
  const dir = path.join(parent.dir, name);
  // The parent may have been removed by another sandbox's delete in between: one retry. Its
  // weight is written every time: a parent remade in between starts with the default.
  for (let attempt = 0; ; attempt++) {
    try {
      await mkdir(parent.dir, { recursive: true });
      if (parent.version === 2) await enableControllers(parent.dir, parent.controllers);
      if (parent.controllers.includes("cpu")) {
        const weight = cpuWeightFile(parent.version, cpuWeight);
        await writeFile(path.join(parent.dir, weight.file), weight.value);
      }
      await mkdir(dir, { recursive: true });
      return dir;
    } catch (error) {
      if (attempt > 0 || !isCode(error, "ENOENT")) throw error;
    }
  }
}

async function writeMemoryLimit(version: 1 | 2, dir: string, memoryMb: number | undefined) {
  const bytes = memoryMb === undefined ? null : String(Math.floor(memoryMb * 1024 * 1024));
  if (version === 2) {
    await writeLimit(dir, "memory.max", bytes ?? "max");
    await writeLimit(dir, "memory.swap.max", bytes === null ? "max" : "0", { optional: true });
    return;
  }
  // v1: memsw (RAM + swap) may never be below the RAM limit, so which goes first depends on
  // whether a reused cgroup's limit grows or shrinks.
  const ram = () => writeLimit(dir, "memory.limit_in_bytes", bytes ?? "-1");
  const total = () =>
    writeLimit(dir, "memory.memsw.limit_in_bytes", bytes ?? "-1", { optional: true });
  try {
    await ram();
  } catch (error) {
    if (!isCode(error, "EINVAL")) throw error;
    await total();
    await ram();
  }
  await total();
}

async function writeLimit(
  dir: string,
  file: string,
  value: string,
  options: { optional?: boolean } = {},
): Promise<void> {
  try {
    await writeFile(path.join(dir, file), value);
  } catch (error) {
    // Swap accounting is often off (no memsw / swap.max files): RAM alone is limited then.
    if (options.optional && isCode(error, "ENOENT")) return;
    throw error;
  }
}

async function removeDir(dir: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await rmdir(dir);
      return;
    } catch (error) {
      if (isCode(error, "ENOENT")) return;
      if (!isCode(error, "EBUSY") || Date.now() >= deadline) throw error;
      await sleep(25);
    }
  }
}

function isCode(error: unknown, code: string): boolean {
  return error instanceof Error && "code" in error && error.code === code;
}

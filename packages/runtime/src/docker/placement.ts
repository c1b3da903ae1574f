/** What one live host holds, for placing a new sandbox. */
export interface HostLoad {
  name: string;
  /** Running (and paused: they keep their memory) sandboxes, plus starts under way. */
  sandboxes: number;
  maxSandboxes: number;
  /** Memory limits of those sandboxes, in bytes. */
  memoryBytes: number;
  /** The daemon's memory (`docker info` MemTotal), in bytes. */
  memoryTotalBytes: number;
}

export type Placement = { host: string } | { host: null; why: string };

/**
 * The live host with the most free capacity after taking the new sandbox: the smaller of its
 * free sandbox slots and its free memory, each as a share of its limit. A host the sandbox does
 * not fit on (no slot, not enough memory) is never chosen; ties go to the host listed first.
 */
export function chooseHost(loads: HostLoad[], memoryBytes: number): Placement {
  let best: { host: string; free: number } | null = null;
  const full: string[] = [];
  for (const load of loads) {
    const slots = load.maxSandboxes - load.sandboxes - 1;
    const memory = load.memoryTotalBytes - load.memoryBytes - memoryBytes;
    if (slots < 0 || memory < 0) {
      full.push(
        `${load.name} (${load.sandboxes}/${load.maxSandboxes} sandboxes, ${mib(load.memoryBytes)}/${mib(load.memoryTotalBytes)} MiB)`,
      );
      continue;
    }
    const free = Math.min(slots / load.maxSandboxes, memory / load.memoryTotalBytes);
    if (best === null || free > best.free) best = { host: load.name, free };
  }
  if (best !== null) return { host: best.host };
  if (loads.length === 0) return { host: null, why: "no Docker host answers" };
  return { host: null, why: `no Docker host has room for it: ${full.join(", ")}` };
}

/** One slot per 512 MiB of the host's memory, as the control plane's own default limit. */
export function defaultMaxSandboxes(memoryTotalBytes: number): number {
  return Math.max(1, Math.floor(memoryTotalBytes / (512 * 1024 * 1024)));
}

function mib(bytes: number): number {
  return Math.round(bytes / (1024 * 1024));
}

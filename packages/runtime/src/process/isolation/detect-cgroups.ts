import { access, mkdir, readFile, rmdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { errorMessage } from "../../error-message";

/**
 * Where this runtime can put sandboxes into cgroups with pids and memory limits.
 * - v2: one directory `<cgroup2 mount>/sandbox-server`, with the pids and memory controllers
 *   enabled for its children. It sits at the top of the hierarchy, as Docker's cgroupfs driver
 *   puts `/docker`: under v2 a cgroup that holds processes (the control plane's own) cannot hand
 *   controllers to children.
 * - v1: `sandbox-server` below the control plane's own cgroup in the pids and the memory
 *   hierarchy, so that limits placed on the control plane also cover its sandboxes.
 */
export type CgroupSupport =
  | { usable: true; version: 1 | 2; parents: CgroupParent[] }
  | { usable: false; reason: string };

export interface CgroupParent {
  dir: string;
  controllers: Controller[];
}

export type Controller = "pids" | "memory";

const PARENT_NAME = "sandbox-server";
const PROBE_NAME = "probe";

let detected: Promise<CgroupSupport> | null = null;

/** Probed once per process, by creating (and removing) a cgroup with both limits. */
export function detectCgroups(): Promise<CgroupSupport> {
  detected ??= probeCgroups().catch((error: unknown) => ({
    usable: false as const,
    reason: `cgroups could not be probed: ${errorMessage(error)}`,
  }));
  return detected;
}

interface Mount {
  mountPoint: string;
  /** The part of the hierarchy the mount shows (not `/` in some containers). */
  root: string;
  type: string;
  options: string[];
}

async function probeCgroups(): Promise<CgroupSupport> {
  const mounts = parseMountInfo(await readFile("/proc/self/mountinfo", "utf8"));
  const own = parseOwnCgroups(await readFile("/proc/self/cgroup", "utf8"));
  const v2 = mounts.find((mount) => mount.type === "cgroup2");
  const reasons: string[] = [];
  if (v2) {
    const result = await probeV2(v2);
    if (result.usable) return result;
    reasons.push(result.reason);
  }
  const pids = mounts.find((m) => m.type === "cgroup" && m.options.includes("pids"));
  const memory = mounts.find((m) => m.type === "cgroup" && m.options.includes("memory"));
  if (pids && memory) {
    const result = await probeV1(pids, memory, own);
    if (result.usable) return result;
    reasons.push(result.reason);
  }
  if (reasons.length === 0) reasons.push("no cgroup filesystem is mounted");
  return { usable: false, reason: reasons.join("; ") };
}

async function probeV2(mount: Mount): Promise<CgroupSupport> {
  const root = mount.mountPoint;
  const available = (await readFile(path.join(root, "cgroup.controllers"), "utf8")).split(/\s+/);
  if (!available.includes("pids") || !available.includes("memory")) {
    return {
      usable: false,
      reason: `cgroup v2 at ${root} offers no pids and memory controllers (they may be bound to cgroup v1)`,
    };
  }
  const parent = path.join(root, PARENT_NAME);
  try {
    await enableControllers(root);
    await mkdir(parent, { recursive: true });
    await enableControllers(parent);
    await probeChild(parent, ["pids.max", "memory.max"]);
  } catch (error) {
    return {
      usable: false,
      reason: `cgroup v2 at ${root} is not writable here: ${errorMessage(error)}`,
    };
  } finally {
    // Created again on demand; nothing is left behind by a probe.
    await rmdir(parent).catch(() => undefined);
  }
  return { usable: true, version: 2, parents: [{ dir: parent, controllers: ["pids", "memory"] }] };
}

async function probeV1(
  pids: Mount,
  memory: Mount,
  own: Map<string, string>,
): Promise<CgroupSupport> {
  const parents: CgroupParent[] = [
    { dir: path.join(ownDir(pids, own.get("pids")), PARENT_NAME), controllers: ["pids"] },
    { dir: path.join(ownDir(memory, own.get("memory")), PARENT_NAME), controllers: ["memory"] },
  ];
  try {
    for (const parent of parents) {
      await mkdir(parent.dir, { recursive: true });
      const file = parent.controllers[0] === "pids" ? "pids.max" : "memory.limit_in_bytes";
      await probeChild(parent.dir, [file]);
    }
  } catch (error) {
    return {
      usable: false,
      reason: `cgroup v1 pids/memory are not writable here: ${errorMessage(error)}`,
    };
  } finally {
    // Created again on demand; nothing is left behind by a probe.
    for (const parent of parents) await rmdir(parent.dir).catch(() => undefined);
  }
  return { usable: true, version: 1, parents };
}

/** `+pids +memory` in `dir`'s subtree_control, unless both are already there. */
export async function enableControllers(dir: string): Promise<void> {
  const file = path.join(dir, "cgroup.subtree_control");
  const enabled = (await readFile(file, "utf8")).split(/\s+/);
  if (enabled.includes("pids") && enabled.includes("memory")) return;
  await writeFile(file, "+pids +memory");
}

async function probeChild(parent: string, files: string[]): Promise<void> {
  const child = path.join(parent, `${PROBE_NAME}-${process.pid}`);
  await mkdir(child, { recursive: true });
  try {
    for (const file of files) await access(path.join(child, file));
  } finally {
    await rmdir(child);
  }
}

function ownDir(mount: Mount, ownPath: string | undefined): string {
  const own = ownPath ?? "/";
  const relative = own.startsWith(mount.root) ? own.slice(mount.root.length) : "";
  return path.join(mount.mountPoint, relative);
}

export function parseMountInfo(text: string): Mount[] {
  return text
    .split("\n")
    .filter(Boolean)
    .flatMap((line) => {
      const [before, after] = line.split(" - ");
      const fields = before?.split(" ") ?? [];
      const [type, , superOptions] = after?.split(" ") ?? [];
      const root = fields[3];
      const mountPoint = fields[4];
      if (!type || !root || !mountPoint) return [];
      return [{ mountPoint, root, type, options: (superOptions ?? "").split(",") }];
    });
}

/** Controller name → the control plane's own cgroup path, from /proc/self/cgroup (v1 lines). */
export function parseOwnCgroups(text: string): Map<string, string> {
  const own = new Map<string, string>();
  for (const line of text.split("\n")) {
    const [, controllers, cgroupPath] = line.split(":");
    if (!controllers || cgroupPath === undefined) continue;
    for (const controller of controllers.split(",")) own.set(controller, cgroupPath);
  }
  return own;
}

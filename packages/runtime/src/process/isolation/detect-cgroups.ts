import { access, mkdir, readFile, rmdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { errorMessage } from "../../error-message";

/**
 * Where this runtime can put sandboxes into cgroups, for two independent features: pids and
 * memory limits, and the CPU weight of all sandboxes together against the control plane. Each
 * is probed on its own (a machine may offer one and not the other):
 * - v2: one directory `<cgroup2 mount>/sandbox-server`, with the controllers enabled for its
 *   children. It sits at the top of the hierarchy, as Docker's cgroupfs driver puts `/docker`:
 *   under v2 a cgroup that holds processes (the control plane's own) cannot hand controllers to
 *   children.
 * - v1: `sandbox-server` below the control plane's own cgroup in the pids, the memory and the
 *   cpu hierarchy, so that limits placed on the control plane also cover its sandboxes, and the
 *   sandboxes' weight is a sibling of the control plane's own tasks.
 */
export interface CgroupSupport {
  /** The parents of sandboxes' cgroups, one per hierarchy (v2: one for all controllers). */
  parents: CgroupParent[];
  /** pids and memory limits: enforced, or why not. */
  limits: Availability;
  /** The sandboxes' CPU weight: applied, or why not (then each weighs as the control plane). */
  cpu: Availability;
}

export type Availability = { usable: true } | { usable: false; reason: string };

export interface CgroupParent {
  dir: string;
  version: 1 | 2;
  controllers: Controller[];
}

export type Controller = "pids" | "memory" | "cpu";

const PARENT_NAME = "sandbox-server";
const PROBE_NAME = "probe";
const LIMITS: Controller[] = ["pids", "memory"];
const CPU: Controller[] = ["cpu"];

let detected: Promise<CgroupSupport> | null = null;

/** Probed once per process, by creating (and removing) a cgroup with the controllers. */
export function detectCgroups(): Promise<CgroupSupport> {
  detected ??= probeCgroups().catch((error: unknown) => {
    const reason = `cgroups could not be probed: ${errorMessage(error)}`;
    return { parents: [], limits: { usable: false, reason }, cpu: { usable: false, reason } };
  });
  return detected;
}

interface Mount {
  mountPoint: string;
  /** The part of the hierarchy the mount shows (not `/` in some containers). */
  root: string;
  type: string;
  options: string[];
}

type Probed = { usable: true; parents: CgroupParent[] } | { usable: false; reason: string };

async function probeCgroups(): Promise<CgroupSupport> {
  const mounts = parseMountInfo(await readFile("/proc/self/mountinfo", "utf8"));
  const own = parseOwnCgroups(await readFile("/proc/self/cgroup", "utf8"));
  const limits = await probeFeature(mounts, own, LIMITS);
  const cpu = await probeFeature(mounts, own, CPU);
  return {
    parents: mergeParents([
      ...(limits.usable ? limits.parents : []),
      ...(cpu.usable ? cpu.parents : []),
    ]),
    limits: limits.usable ? { usable: true } : limits,
    cpu: cpu.usable ? { usable: true } : cpu,
  };
}

/** v2 when it offers the controllers and is writable, else v1, else why neither. */
async function probeFeature(
  mounts: Mount[],
  own: Map<string, string>,
  controllers: Controller[],
): Promise<Probed> {
  const reasons: string[] = [];
  const v2 = mounts.find((mount) => mount.type === "cgroup2");
  if (v2) {
    const result = await probeV2(v2, controllers);
    if (result.usable) return result;
    reasons.push(result.reason);
  }
  const v1 = controllers.map((controller) =>
    mounts.find((m) => m.type === "cgroup" && m.options.includes(controller)),
  );
  if (v1.every((mount): mount is Mount => mount !== undefined)) {
    const result = await probeV1(v1, own, controllers);
    if (result.usable) return result;
    reasons.push(result.reason);
  }
  if (reasons.length === 0) reasons.push(`no cgroup filesystem offers ${controllers.join("/")}`);
  return { usable: false, reason: reasons.join("; ") };
}

/** One parent per directory: under v2 the limits and the cpu share the same. */
export function mergeParents(parents: CgroupParent[]): CgroupParent[] {
  const merged = new Map<string, CgroupParent>();
  for (const parent of parents) {
    const known = merged.get(parent.dir);
    if (known) known.controllers = [...known.controllers, ...parent.controllers];
    else merged.set(parent.dir, { ...parent, controllers: [...parent.controllers] });
  }
  return [...merged.values()];
}

async function probeV2(mount: Mount, controllers: Controller[]): Promise<Probed> {
  const root = mount.mountPoint;
  const available = (await readFile(path.join(root, "cgroup.controllers"), "utf8")).split(/\s+/);
  const names = controllers.join(" and ");
  if (!controllers.every((controller) => available.includes(controller))) {
    return {
      usable: false,
      reason: `cgroup v2 at ${root} offers no ${names} controller (it may be bound to cgroup v1)`,
    };
  }
  const parent = path.join(root, PARENT_NAME);
  try {
    await enableControllers(root, controllers);
    await mkdir(parent, { recursive: true });
    await enableControllers(parent, controllers);
    await probeChild(
      parent,
      controllers.map((controller) => V2_PROBE_FILES[controller]),
    );
  } catch (error) {
    return {
      usable: false,
      reason: `cgroup v2 ${names} at ${root} is not writable here: ${errorMessage(error)}`,
    };
  } finally {
    // Created again on demand; nothing is left behind by a probe.
    await rmdir(parent).catch(() => undefined);
  }
  return { usable: true, parents: [{ dir: parent, version: 2, controllers }] };
}

const V1_PROBE_FILES: Record<Controller, string> = {
  pids: "pids.max",
  memory: "memory.limit_in_bytes",
  cpu: "cpu.shares",
};
const V2_PROBE_FILES: Record<Controller, string> = {
  pids: "pids.max",
  memory: "memory.max",
  cpu: "cpu.weight",
};

async function probeV1(
  mounts: Mount[],
  own: Map<string, string>,
  controllers: Controller[],
): Promise<Probed> {
  const parents: CgroupParent[] = controllers.map((controller, index) => ({
    dir: path.join(ownDir(mounts[index], own.get(controller)), PARENT_NAME),
    version: 1,
    controllers: [controller],
  }));
  try {
    for (const parent of parents) {
      await mkdir(parent.dir, { recursive: true });
      await probeChild(
        parent.dir,
        parent.controllers.map((c) => V1_PROBE_FILES[c]),
      );
    }
  } catch (error) {
    return {
      usable: false,
      reason: `cgroup v1 ${controllers.join("/")} are not writable here: ${errorMessage(error)}`,
    };
  } finally {
    // Created again on demand; nothing is left behind by a probe.
    for (const parent of parents) await rmdir(parent.dir).catch(() => undefined);
  }
  return { usable: true, parents };
}

/** What to write into a v2 `cgroup.subtree_control` that shows `enabled`, or null for nothing. */
export function subtreeControlChange(enabled: string, controllers: Controller[]): string | null {
  const present = enabled.split(/\s+/);
  const missing = controllers.filter((controller) => !present.includes(controller));
  return missing.length === 0 ? null : missing.map((controller) => `+${controller}`).join(" ");
}

/** The controllers in `dir`'s subtree_control, unless they are there already. */
export async function enableControllers(dir: string, controllers: Controller[]): Promise<void> {
  const file = path.join(dir, "cgroup.subtree_control");
  const change = subtreeControlChange(await readFile(file, "utf8"), controllers);
  if (change !== null) await writeFile(file, change);
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

function ownDir(mount: Mount | undefined, ownPath: string | undefined): string {
  if (!mount) throw new Error("no mount for a controller");
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

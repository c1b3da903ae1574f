import { execFileSync, spawnSync } from "node:child_process";
import { systemViewArgs } from "./system-view";

/** bubblewrap, found and proven to work on this machine. */
export interface UsableBwrap {
  usable: true;
  /** Absolute path of the binary (sandboxes are spawned with an environment without PATH). */
  path: string;
  version: string;
  /** `--disable-userns` (0.8+): no nested user namespaces, so no capabilities inside either. */
  disableUserns: boolean;
  /** `--size` (0.8+) for the private /tmp. */
  tmpfsSize: boolean;
}

export type BwrapSupport = UsableBwrap | { usable: false; reason: string };

export interface DetectBwrapOptions {
  /** The bwrap binary (default: `bwrap` on the PATH). */
  bwrapPath?: string;
  /** The node binary the sandboxes will run; the trial runs it (default: this process's). */
  nodePath?: string;
}

const cache = new Map<string, BwrapSupport>();

/**
 * Whether process sandboxes can run under bubblewrap here. Two checks, done once per process:
 * `bwrap --version` answers, and a trial sandbox with the namespaces the runtime uses (user, pid,
 * ipc, uts, mount) actually starts and runs node — user namespaces may be off (sysctl, AppArmor,
 * a container without them), which only the trial shows. Synchronous, so a runtime knows its
 * isolation level from its constructor on; it costs one short-lived sandbox.
 */
export function detectBwrap(options: DetectBwrapOptions = {}): BwrapSupport {
  const nodePath = options.nodePath ?? process.execPath;
  const key = `${options.bwrapPath ?? ""}\0${nodePath}`;
  const known = cache.get(key);
  if (known) return known;
  const support = probe(options.bwrapPath, nodePath);
  cache.set(key, support);
  return support;
}

function probe(bwrapPath: string | undefined, nodePath: string): BwrapSupport {
  const path = bwrapPath ?? findOnPath("bwrap");
  if (path === null) return { usable: false, reason: "bwrap (bubblewrap) is not installed" };
  const version = run(path, ["--version"]);
  if (!version.ok)
    return { usable: false, reason: `${path} --version failed: ${firstLine(version)}` };
  const help = run(path, ["--help"]).output;
  const support: UsableBwrap = {
    usable: true,
    path,
    version: firstLine(version).replace(/^bubblewrap\s*/, ""),
    disableUserns: help.includes("--disable-userns"),
    tmpfsSize: help.includes("--size"),
  };
  const trial = run(path, [
    "--unshare-user",
    "--uid",
    "10001",
    "--gid",
    "10001",
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    ...(support.disableUserns ? ["--disable-userns"] : []),
    "--new-session",
    ...systemViewArgs(nodePath),
    "--proc",
    "/proc",
    "--dev",
    "/dev",
    "--tmpfs",
    "/tmp",
    "--clearenv",
    "--",
    nodePath,
    "-e",
    "process.exit(process.getuid() === 10001 ? 0 : 3)",
  ]);
  if (!trial.ok) {
    return {
      usable: false,
      reason: `bwrap cannot create a sandbox here (are unprivileged user namespaces disabled?): ${firstLine(trial)}`,
    };
  }
  return support;
}

/** The absolute path of `name` on the PATH, or null. */
export function findOnPath(name: string): string | null {
  try {
    const found = execFileSync("/bin/sh", ["-c", `command -v ${name}`], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    }).trim();
    return found.startsWith("/") ? found : null;
  } catch {
    return null;
  }
}

export interface RunResult {
  ok: boolean;
  /** stdout and stderr, or why the command could not be run. */
  output: string;
  status: number | null;
}

export function run(command: string, args: string[]): RunResult {
  const result = spawnSync(command, args, { encoding: "utf8", timeout: 10_000 });
  if (result.error) return { ok: false, output: result.error.message, status: null };
  const output = `${result.stdout ?? ""}${result.stderr ?? ""}`.trim();
  return { ok: result.status === 0, output, status: result.status };
}

export function firstLine(result: RunResult): string {
  return result.output.split("\n")[0] || `exit status ${result.status}`;
}

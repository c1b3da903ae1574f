import type { UsableBwrap } from "./detect-bwrap";
import { codeCacheOf, INSIDE, SANDBOX_HOSTNAME } from "./sandbox-layout";
import type { SharedView } from "./shared-view";
import { systemViewArgs } from "./system-view";

export interface BwrapLaunchInput {
  bwrap: UsableBwrap;
  nodePath: string;
  uid: number;
  /** Host directories bound read-write. */
  workspaceDir: string;
  homeDir: string;
  agentDataDir: string;
  /** Its /etc and the bundle's package.json (shared-view.ts). */
  view: SharedView;
  /** The agent-server bundle, when the default command runs. */
  agentServerEntry: string | null;
  /** argv inside the sandbox. */
  command: string[];
  /** The whole environment inside the sandbox. */
  env: Record<string, string>;
  /** Size of the private /tmp (a tmpfs, so memory). */
  tmpSizeMb: number;
  /** The descriptor bwrap reads the seccomp program from (prepare-seccomp.ts); none: no filter. */
  seccompFd?: number;
}

export interface BwrapLaunch {
  /** bwrap's argv: nothing secret (it is world-readable in /proc/<pid>/cmdline). */
  argv: string[];
  /** More arguments for `--args 3`: the environment, which holds the session key. */
  fd3: Buffer;
}

/** The file descriptor bwrap reads the secret part of its arguments from. */
export const ARGS_FD = 3;
/** ...and the one it reads the seccomp program from. */
export const SECCOMP_FD = 4;

/**
 * bwrap's arguments for one sandbox. Namespaces: user (the sandbox's uid maps to the control
 * plane's on the host and holds no capabilities), pid, ipc, uts, cgroup, mount — not the network:
 * the control plane reaches the agent server on 127.0.0.1. No `--die-with-parent`: sandboxes
 * outlive the control plane and are adopted by the next one. `--new-session` keeps a command from
 * pushing input into a terminal of ours (TIOCSTI). The root is an empty tmpfs, made read-only at
 * the end, holding only what is bound into it.
 */
export function buildBwrapArgs(input: BwrapLaunchInput): BwrapLaunch {
  const { bwrap } = input;
  const uid = String(input.uid);
  const argv = [
    bwrap.path,
    "--unshare-user",
    "--uid",
    uid,
    "--gid",
    uid,
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-cgroup-try",
    "--hostname",
    SANDBOX_HOSTNAME,
    ...(bwrap.disableUserns ? ["--disable-userns"] : []),
    "--new-session",
    ...systemViewArgs(input.nodePath),
    // One bind for /etc (its own files, copies of the host's public ones), then the host's
    // public directories over their mount points in it.
    "--ro-bind",
    input.view.etcDir,
    "/etc",
    ...input.view.hostEtcDirs.flatMap((dir) => ["--ro-bind-try", `/etc/${dir}`, `/etc/${dir}`]),
    "--proc",
    "/proc",
    "--dev",
    "/dev",
    ...(bwrap.tmpfsSize ? ["--size", String(input.tmpSizeMb * 1024 * 1024)] : []),
    "--tmpfs",
    "/tmp",
    "--symlink",
    "/tmp",
    "/var/tmp",
    "--bind",
    input.workspaceDir,
    INSIDE.workspace,
    "--bind",
    input.homeDir,
    INSIDE.home,
    "--bind",
    input.agentDataDir,
    INSIDE.agentData,
    ...(input.agentServerEntry
      ? [
          "--ro-bind",
          input.agentServerEntry,
          INSIDE.agentServerEntry,
          "--ro-bind",
          input.view.bundlePackageJson,
          `${INSIDE.agentServerDir}/package.json`,
          // Read-only like the bundle; absent (an unbuilt cache) is fine.
          "--ro-bind-try",
          codeCacheOf(input.agentServerEntry),
          INSIDE.agentServerCodeCache,
        ]
      : []),
    "--remount-ro",
    "/",
    "--chdir",
    INSIDE.workspace,
    ...(input.seccompFd === undefined ? [] : ["--seccomp", String(input.seccompFd)]),
    "--args",
    String(ARGS_FD),
    "--",
    ...input.command,
  ];
  const secret = [
    "--clearenv",
    ...Object.entries(input.env).flatMap(([k, v]) => ["--setenv", k, v]),
  ];
  return { argv, fd3: Buffer.from(secret.map((arg) => `${arg}\0`).join("")) };
}

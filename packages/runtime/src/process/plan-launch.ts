import { buildAgentServerEnv } from "./build-agent-server-env";
import { buildBwrapArgs, SECCOMP_FD } from "./isolation/build-bwrap-args";
import { INSIDE } from "./isolation/sandbox-layout";
import type { SharedViewKeeper } from "./isolation/shared-view";
import { proxyEnvOf } from "./network/egress-proxy";
import { PROXY_PORT } from "./network/egress-ruleset";
import { INSIDE_AGENT_PORT } from "./network/sandbox-network";
import type { ProcessRuntimeSettings } from "./process-runtime-options";
import type { SandboxPaths, SandboxSecrets } from "./sandbox-files";
import { SANDBOX_MARKER_ENV } from "./sandbox-processes";

/** Everything launchAgentServer needs for one run of a sandbox. */
export interface LaunchPlan {
  /** What the launched process runs as once started: recorded, compared on adoption. */
  argv: string[];
  env: Record<string, string>;
  cwd: string;
  /** Written to the process's fd 3 (bwrap reads the sandbox's environment from there). */
  fd3: Buffer | null;
  /** Written to fd 4: the seccomp program bwrap loads, when there is one. */
  fd4: Buffer | null;
  /** bwrap reports a program killed by signal n as exit code 128 + n. */
  exitCodesCarrySignals: boolean;
  isolation: "namespaces" | "none";
}

export interface PlanInput {
  settings: ProcessRuntimeSettings;
  paths: SandboxPaths;
  /** The start option `command`; null runs the agent-server bundle. */
  command: string[] | null;
  secrets: SandboxSecrets;
  /** What every bubblewrapped sandbox is shown (its /etc, the bundle's package.json). */
  view: SharedViewKeeper;
  /** The sandbox runs in a network namespace of its own: its agent server has a fixed port there. */
  ownNetwork: boolean;
  /** Where it listens in its namespace when the host reaches it there (its veth address). */
  listenAddress?: string | null;
  /** Its loopback's PROXY_PORT leads to the control plane's egress proxy: say so in the proxy variables. */
  proxied?: boolean;
}

/**
 * How to launch the agent server: under bubblewrap (the sandbox sees /workspace, HOME
 * /home/agent, its own /etc; the environment travels on fd 3, since bwrap's command line is
 * readable by every user of the host), or as a plain process carrying the marker that finds its
 * processes. On the host's network `--port 0 --host <loopback>` is appended: the port is read from
 * the listening line, so no other process can take a port picked in advance. In a namespace of its
 * own the port is fixed (nothing else is there yet), and the host reaches it through pasta.
 */
export async function planLaunch(input: PlanInput): Promise<LaunchPlan> {
  const { settings, paths, secrets } = input;
  const port = input.ownNetwork ? INSIDE_AGENT_PORT : 0;
  const listen = ["--port", String(port), "--host", input.listenAddress ?? settings.host];
  const marker = { [SANDBOX_MARKER_ENV]: paths.dir };
  const envOptions = {
    path: settings.sandboxPath,
    lang: settings.lang,
    sessionApiKey: secrets.sessionApiKey,
    extra: secrets.env,
    ...(input.proxied ? { network: proxyEnvOf(`http://127.0.0.1:${PROXY_PORT}`) } : {}),
  };
  if (settings.bwrap === null) {
    const argv = [...(input.command ?? [settings.nodePath, settings.agentServerEntry]), ...listen];
    const env = buildAgentServerEnv({
      ...envOptions,
      home: paths.dir,
      dataDir: paths.dataDir,
      workspaceDir: paths.workspaceDir,
      marker,
    });
    return {
      argv,
      env,
      cwd: paths.workspaceDir,
      fd3: null,
      fd4: null,
      exitCodesCarrySignals: false,
      isolation: "none",
    };
  }
  const view = await input.view.current();
  const seccomp = settings.seccomp?.usable ? settings.seccomp.program : null;
  const bwrap = buildBwrapArgs({
    bwrap: settings.bwrap,
    nodePath: settings.nodePath,
    uid: settings.sandboxUid,
    workspaceDir: paths.workspaceDir,
    homeDir: paths.homeDir,
    agentDataDir: paths.dataDir,
    view,
    agentServerEntry: input.command ? null : settings.agentServerEntry,
    command: [...(input.command ?? [settings.nodePath, INSIDE.agentServerEntry]), ...listen],
    env: buildAgentServerEnv({
      ...envOptions,
      home: INSIDE.home,
      dataDir: INSIDE.agentData,
      workspaceDir: INSIDE.workspace,
    }),
    tmpSizeMb: settings.tmpSizeMb,
    ...(seccomp ? { seccompFd: SECCOMP_FD } : {}),
  });
  // bwrap itself gets only the marker; what the sandbox gets is set up by --clearenv/--setenv.
  return {
    argv: bwrap.argv,
    env: marker,
    cwd: paths.dir,
    fd3: bwrap.fd3,
    fd4: seccomp,
    exitCodesCarrySignals: true,
    isolation: "namespaces",
  };
}

// The shell joins each cgroup, then execs (same pid, same cgroups): the launched process starts
// in them. v1's `tasks` gets `0` (this thread: the shell has one), which spares the kernel's
// global lock (see createSandboxCgroup); v2's `cgroup.procs` gets `$$`, the shell's pid. The
// shell's own PWD is not passed on: the launched process gets the environment it was given.
const JOIN_CGROUPS =
  'while [ "$1" != -- ]; do case "$1" in */tasks) echo 0 > "$1" ;; *) echo $$ > "$1" ;; esac || exit 125; shift; done; shift; unset PWD; exec "$@"';

/**
 * What is spawned: `argv`, or, to start it in the sandbox's cgroups (v1 `tasks`, v2
 * `cgroup.procs`; none: no cgroup), a shell that joins them first and then execs `argv`.
 */
export function spawnArgvOf(argv: string[], cgroupJoinFiles: string[]): string[] {
  return cgroupJoinFiles.length === 0
    ? argv
    : ["/bin/sh", "-c", JOIN_CGROUPS, "join-cgroup", ...cgroupJoinFiles, "--", ...argv];
}

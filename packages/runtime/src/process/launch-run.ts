import { errorMessage } from "../error-message";
import type { RuntimeLogger } from "../types";
import { prepareRunCgroup, type RunCgroupInput } from "./isolation/run-limits";
import type { SharedViewKeeper } from "./isolation/shared-view";
import { type ExitInfo, LaunchFailure, launchAgentServer } from "./launch-agent-server";
import type { NetnsLink, UsableNetns } from "./network/detect-netns";
import type { LoopbackForward } from "./network/egress-ruleset";
import {
  applyRuleset,
  attachPasta,
  createNetns,
  INSIDE_AGENT_PORT,
  netnsPathOf,
} from "./network/sandbox-network";
import { planLaunch, spawnArgvOf } from "./plan-launch";
import type { ProcessRuntimeSettings } from "./process-runtime-options";
import {
  createSandboxDirs,
  type SandboxPaths,
  type SandboxSecrets,
  type SandboxState,
  writeSandboxState,
} from "./sandbox-files";
import { killSandboxProcesses } from "./sandbox-processes";
import type { AgentServerRun, SandboxRecord } from "./sandbox-record";

/** The launch record of a sandbox before (or without) a process: what to run, no pid yet. */
export function launchState(settings: ProcessRuntimeSettings, record: SandboxRecord): SandboxState {
  return {
    sandboxId: record.sandboxId,
    pid: null,
    port: null,
    argv: [],
    command: record.command,
    labels: record.labels,
    limits: record.limits,
    isolation: settings.bwrap ? "namespaces" : "none",
    cgroup: record.cgroupName,
    logOffset: 0,
    startedAt: new Date().toISOString(),
    egress: record.egress,
    network: record.netns
      ? {
          namespace: record.netns,
          resolverPort: record.resolverPort,
          address: record.netnsAddress,
          proxyPort: record.proxyPort,
        }
      : null,
  };
}

/** What the sandbox's cgroup is made of: its limits, and the CPU weight of all sandboxes. */
export function runCgroupInput(
  settings: ProcessRuntimeSettings,
  record: SandboxRecord,
): RunCgroupInput {
  return {
    sandboxDir: record.paths.dir,
    sandboxId: record.sandboxId,
    limits: record.limits,
    cpuWeight: settings.sandboxCpuWeight,
  };
}

/** A launch into a network namespace of the sandbox's own. */
export interface RunNetwork {
  tools: UsableNetns;
  link: NetnsLink;
  /**
   * Its namespace (`ip netns` name): made already (`record.preparedNetns`) or made by the launch;
   * with a veth pair, made (and addressed) before the launch.
   */
  namespace: string;
  /** Its address on its veth pair, where the agent server listens; null with pasta. */
  address: string | null;
  /**
   * The sandbox's ruleset (compileEgressRuleset), applied before pasta gives it a way out, or
   * over the closed table its veth pair came with.
   */
  ruleset: string;
  /** The host port of the sandbox's resolver, or null for none. */
  resolverPort: number | null;
  /**
   * The port of the sandbox's egress proxy, or null for none: on the host's 127.0.0.1 (pasta
   * forwards the namespace's PROXY_PORT to it), or PROXY_PORT on the host's end of the veth pair.
   */
  proxyPort: number | null;
  forwards: LoopbackForward[];
}

export type RunLaunch =
  | {
      ok: true;
      run: AgentServerRun;
      /** For the caller to attach `run.exitRecorded` to. */
      exited: Promise<ExitInfo>;
      /** `sandbox.json` with the run's pid and port: null once written, else why it was not. */
      stateWritten: Promise<string | null>;
    }
  | { ok: false; detail: string };

/**
 * One launch of a sandbox's agent server: its directories, its cgroup (where cgroups work), the
 * plan (bubblewrap or plain), the process, and `sandbox.json` — written even after a failure, so
 * a restarted control plane still lists the sandbox. After a launch that came up, the write
 * (flushed to disk: ~3 ms, more under load) goes on while the caller waits for /health
 * (`stateWritten`); after a failed one it is done before this returns. Sets
 * `record.cgroupName`; the caller owns `record.run` and `record.exitDetail`.
 *
 * With `network`, the sandbox gets its namespace (made, or kept from an earlier run) before bwrap
 * starts in it (`nsenter --net`: bwrap itself makes no network namespace); its ruleset, then pasta,
 * are applied meanwhile; the run's port is then the host's end of pasta's forward. With a veth
 * pair only the ruleset is applied meanwhile, and the host reaches the agent server at the
 * namespace's address.
 */
export async function launchRun(
  settings: ProcessRuntimeSettings,
  view: SharedViewKeeper,
  logger: RuntimeLogger,
  record: SandboxRecord,
  secrets: SandboxSecrets,
  network: RunNetwork | null,
): Promise<RunLaunch> {
  const { sandboxId, paths } = record;
  record.netns = network?.namespace ?? null;
  record.resolverPort = network?.resolverPort ?? null;
  record.netnsAddress = network?.address ?? null;
  record.proxyPort = network?.proxyPort ?? null;
  const state = launchState(settings, record);
  let detail: string;
  // With a veth pair the agent server's port is known before it listens: the run is recorded
  // (a flushed write) while it starts, not after.
  let earlyState = null as Promise<string | null> | null;
  try {
    // The cgroup `register` made for this launch, if it did (once: a relaunch makes its own).
    const preparedCgroup =
      record.preparedCgroup ?? prepareRunCgroup(runCgroupInput(settings, record), logger);
    record.preparedCgroup = null;
    const netns = record.netns;
    // The namespace: made at register or from the pool for a first launch, else now (a relaunch:
    // it is there already, unless the machine restarted); its ruleset below.
    const preparedNetns = record.preparedNetns;
    record.preparedNetns = null;
    // Independent of each other (the directories, the plan's files, the cgroup, the namespace).
    const [cgroup, plan] = await Promise.all([
      preparedCgroup,
      planLaunch({
        settings,
        paths,
        command: record.command,
        secrets,
        view,
        ownNetwork: !!netns,
        listenAddress: network?.address ?? null,
        proxied: !!netns && network?.proxyPort != null,
      }),
      createSandboxDirs(paths),
      network && netns && network.link === "pasta"
        ? (preparedNetns ?? Promise.resolve(false)).then(async (made) => {
            if (!made) await createNetns(network.tools, netns);
          })
        : null,
    ]);
    if (cgroup) record.cgroupName = state.cgroup = cgroup.name;
    state.argv = plan.argv;
    // nsenter execs bwrap: the pid and the argv /proc shows are bwrap's, as without it.
    const argv =
      network && netns
        ? [network.tools.nsenter, `--net=${netnsPathOf(netns)}`, ...plan.argv]
        : plan.argv;
    // The ruleset, then pasta (one spawn), while bwrap and the agent server start: the namespace
    // has no way out before pasta's tap device, so nothing leaves it before the ruleset is in
    // place (a ruleset that fails means no pasta, and a failed launch). pasta carries the marker,
    // so pause, delete and a relaunch reach it with the sandbox.
    // With a veth pair the ruleset replaces the closed table the pair came with.
    // Both begin once the agent server is spawned: its start is the longer wait.
    const bringLinkUp = (): Promise<{ port: number | null; error: string | null }> | null =>
      network && netns
        ? (network.link === "veth"
            ? applyRuleset(network.tools, netns, network.ruleset).then(() => INSIDE_AGENT_PORT)
            : attachPasta({ ...network, name: netns, env: plan.env })
          ).then(
            (port) => ({ port, error: null }),
            (error: unknown) => ({ port: null, error: errorMessage(error) }),
          )
        : null;
    let linkUp = null as ReturnType<typeof bringLinkUp>;
    const launched = await launchAgentServer({
      argv: spawnArgvOf(argv, cgroup?.joinFiles ?? []),
      env: plan.env,
      cwd: plan.cwd,
      fd3: plan.fd3,
      fd4: plan.fd4,
      exitCodesCarrySignals: plan.exitCodesCarrySignals,
      logFile: paths.logFile,
      listenTimeoutMs: settings.listenTimeoutMs,
      killAll: () => killSandboxProcesses(paths.dir),
      onSpawned: (pid, logOffset) => {
        linkUp = bringLinkUp();
        if (network?.link !== "veth") return;
        earlyState = recordRun(paths, { ...state, pid, port: INSIDE_AGENT_PORT, logOffset });
      },
    }).catch(async (error: unknown) => {
      await linkUp;
      await killSandboxProcesses(paths.dir);
      throw error;
    });
    const attached = await linkUp;
    if (attached?.error) {
      await killSandboxProcesses(paths.dir);
      await launched.exited;
      throw new LaunchFailure(attached.error);
    }
    const { pid, logOffset } = launched;
    const port = attached?.port ?? launched.port;
    state.pid = pid;
    state.port = port;
    state.logOffset = logOffset;
    const host = network?.address ?? null;
    const run = { pid, host, port, argv: plan.argv, logOffset, exitRecorded: null, cgroup };
    logger.info({ sandboxId, pid, port, isolation: state.isolation }, "agent server launched");
    const stateWritten = earlyState ?? recordRun(paths, state);
    return { ok: true, run, exited: launched.exited, stateWritten };
  } catch (error) {
    // Also the unexpected (spawn refusing its arguments): the sandbox then reports why.
    detail =
      error instanceof LaunchFailure
        ? error.message
        : `agent server could not be started (${errorMessage(error)})`;
    logger.warn({ sandboxId, detail }, "agent server did not start");
  }
  // After the run's own record, if one was begun: the last write says there is no run.
  await earlyState;
  await writeSandboxState(paths, state);
  return { ok: false, detail };
}

/** Writes the run's `sandbox.json`: null once written, else why it was not (never rejects). */
function recordRun(paths: SandboxPaths, state: SandboxState): Promise<string | null> {
  return writeSandboxState(paths, state).then(
    () => null,
    (error: unknown) => `its launch could not be recorded (${errorMessage(error)})`,
  );
}

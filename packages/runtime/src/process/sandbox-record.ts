import { DEFAULT_SANDBOX_EGRESS, type SandboxEgressPolicy } from "@sandbox-server/egress";
import type { RunCgroup } from "./isolation/run-limits";
import type { SandboxLimits } from "./isolation/sandbox-cgroup";
import { type ProcState, readCmdline, readProcState } from "./read-proc";
import type { SandboxPaths, SandboxSecrets, SandboxState } from "./sandbox-files";

/** One launch of the agent server. */
export interface AgentServerRun {
  pid: number;
  /** Where the host reaches it: its namespace's veth address, or null for the runtime's loopback host. */
  host: string | null;
  port: number;
  argv: string[];
  logOffset: number;
  /** Settles once this run's exit is recorded; null for a process adopted from disk. */
  exitRecorded: Promise<void> | null;
  /** The run's cgroup, known for runs of this control plane (for an out-of-memory detail). */
  cgroup: RunCgroup | null;
}

/** What ProcessRuntime remembers about one sandbox between calls. */
export interface SandboxRecord {
  sandboxId: string;
  paths: SandboxPaths;
  labels: Record<string, string>;
  command: string[] | null;
  limits: SandboxLimits;
  /** The sandbox's cgroup, removed on delete; null when it never had one (no usable cgroups). */
  cgroupName: string | null;
  /** What the sandbox may connect to; enforced while `netns` is set. */
  egress: SandboxEgressPolicy;
  /** Its own network namespace (`ip netns` name), made by its first launch; null: the host's network. */
  netns: string | null;
  /** The host port of its resolver, for the current run. */
  resolverPort: number | null;
  /** Its namespace's address on its veth pair; null without one (pasta, or the host's network). */
  netnsAddress: string | null;
  /**
   * Its egress proxy's port for the current run (null: none): on the host's 127.0.0.1 with
   * pasta, on the host's end of its veth pair (PROXY_PORT) with veth.
   */
  proxyPort: number | null;
  /** Loaded from disk only when an adopted sandbox has to be restarted. */
  secrets: SandboxSecrets | null;
  run: AgentServerRun | null;
  /** Set once the agent server has exited (or never came up): why. */
  exitDetail: string | null;
  /** The kill of whatever the exited agent server left running; a relaunch waits for it. */
  cleanup: Promise<void> | null;
  deleting: boolean;
  /** Registered (durably recorded) and not launched yet: `start` launches it. */
  pendingLaunch: boolean;
  /** The write of `sandbox.json` after the latest launch: null once written, else why not. */
  stateWrite: Promise<string | null> | null;
  /**
   * The cgroup `register` made for the first launch (settled); taken by that launch, so a
   * relaunch makes its own (and counts OOM kills from then).
   */
  preparedCgroup: Promise<RunCgroup | null> | null;
  /** The namespace `register` made for the first launch: true once it is there. */
  preparedNetns: Promise<boolean> | null;
}

/**
 * Rebuilds the record of a sandbox from its `sandbox.json`, after a control-plane restart; its
 * agent server is adopted if it still runs.
 */
export async function adoptSandbox(
  paths: SandboxPaths,
  state: SandboxState,
): Promise<SandboxRecord> {
  const { pid, port } = state;
  const record: SandboxRecord = {
    sandboxId: state.sandboxId,
    paths,
    labels: state.labels,
    command: state.command,
    limits: state.limits ?? {},
    cgroupName: state.cgroup ?? null,
    egress: state.egress ?? DEFAULT_SANDBOX_EGRESS,
    netns: state.network?.namespace ?? null,
    resolverPort: state.network?.resolverPort ?? null,
    netnsAddress: state.network?.address ?? null,
    proxyPort: state.network?.proxyPort ?? null,
    secrets: null,
    run: null,
    exitDetail: "its agent server had not been launched",
    cleanup: null,
    deleting: false,
    pendingLaunch: false,
    stateWrite: null,
    preparedCgroup: null,
    preparedNetns: null,
  };
  if (pid === null || port === null) return record;
  record.run = {
    pid,
    host: state.network?.address ?? null,
    port,
    argv: state.argv,
    logOffset: state.logOffset,
    exitRecorded: null,
    cgroup: null,
  };
  const running = (await readRunState(record.run)) !== "gone";
  record.exitDetail = running ? null : `agent server is not running (pid ${pid} is gone)`;
  return record;
}

/** The state of the run's process, from /proc. */
export async function readRunState(run: AgentServerRun): Promise<ProcState> {
  // A process we did not spawn is recognised by its argv, so a recycled pid does not pass for it.
  if (run.exitRecorded === null) {
    const cmdline = await readCmdline(run.pid);
    if (cmdline === null || !sameArguments(cmdline, run.argv)) return "gone";
  }
  return readProcState(run.pid);
}

// argv[0] is left out: it is whatever the launcher chose to call the program.
function sameArguments(cmdline: string[], argv: string[]): boolean {
  return cmdline.length === argv.length && cmdline.every((arg, i) => i === 0 || arg === argv[i]);
}

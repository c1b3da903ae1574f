import { errorMessage } from "../error-message";
import type { RuntimeLogger } from "../types";
import { prepareRunCgroup } from "./isolation/run-limits";
import { type ExitInfo, LaunchFailure, launchAgentServer } from "./launch-agent-server";
import { planLaunch } from "./plan-launch";
import type { ProcessRuntimeSettings } from "./process-runtime-options";
import {
  createSandboxDirs,
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
  };
}

export type RunLaunch =
  /** `run.exitRecorded` is for the caller to attach to `exited`. */
  { ok: true; run: AgentServerRun; exited: Promise<ExitInfo> } | { ok: false; detail: string };

/**
 * One launch of a sandbox's agent server: its directories, its cgroup (when it has limits), the
 * plan (bubblewrap or plain), the process, and `sandbox.json` — written even after a failure, so
 * a restarted control plane still lists the sandbox. Sets `record.cgroupName`; the caller owns
 * `record.run` and `record.exitDetail`.
 */
export async function launchRun(
  settings: ProcessRuntimeSettings,
  logger: RuntimeLogger,
  record: SandboxRecord,
  secrets: SandboxSecrets,
): Promise<RunLaunch> {
  const { sandboxId, paths } = record;
  const state = launchState(settings, record);
  let result: RunLaunch;
  try {
    await createSandboxDirs(paths);
    const cgroup = await prepareRunCgroup(paths.dir, sandboxId, record.limits, logger);
    if (cgroup) record.cgroupName = state.cgroup = cgroup.name;
    const plan = await planLaunch({
      settings,
      paths,
      command: record.command,
      secrets,
      cgroupJoinFiles: cgroup?.joinFiles ?? [],
    });
    state.argv = plan.argv;
    const launched = await launchAgentServer({
      argv: plan.spawnArgv,
      env: plan.env,
      cwd: plan.cwd,
      fd3: plan.fd3,
      exitCodesCarrySignals: plan.exitCodesCarrySignals,
      logFile: paths.logFile,
      listenTimeoutMs: settings.listenTimeoutMs,
      killAll: () => killSandboxProcesses(paths.dir),
    });
    const { pid, port, logOffset } = launched;
    state.pid = pid;
    state.port = port;
    state.logOffset = logOffset;
    const run = { pid, port, argv: plan.argv, logOffset, exitRecorded: null, cgroup };
    result = { ok: true, run, exited: launched.exited };
    logger.info({ sandboxId, pid, port, isolation: state.isolation }, "agent server launched");
  } catch (error) {
    // Also the unexpected (spawn refusing its arguments): the sandbox then reports why.
    const detail =
      error instanceof LaunchFailure
        ? error.message
        : `agent server could not be started (${errorMessage(error)})`;
    result = { ok: false, detail };
    logger.warn({ sandboxId, detail }, "agent server did not start");
  }
  await writeSandboxState(paths, state);
  return result;
}

import { EventEmitter } from "node:events";
import { readdir, rm } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import {
  DEFAULT_SANDBOX_EGRESS,
  type EgressDenial,
  type SandboxEgressPolicy,
} from "@sandbox-server/egress";
import { errorMessage } from "../error-message";
import { probeHealth, waitForHealth } from "../health";
import { KeyedLock } from "../keyed-lock";
import { silentLogger } from "../logger";
import type {
  IsolationLevel,
  NetworkIsolation,
  RuntimeLogger,
  RuntimeSandbox,
  RuntimeState,
  SandboxRuntime,
  StartSandboxOptions,
} from "../types";
import { readLogTail } from "./agent-server-log";
import { describeSeccomp } from "./isolation/prepare-seccomp";
import { describeOom, prepareRunCgroup, removeRunCgroup } from "./isolation/run-limits";
import { cgroupNameFor, type SandboxLimits } from "./isolation/sandbox-cgroup";
import { SharedViewKeeper } from "./isolation/shared-view";
import { describeExit, type ExitInfo, withOutput } from "./launch-agent-server";
import { launchRun, launchState, type RunNetwork, runCgroupInput } from "./launch-run";
import type { NetnsLink } from "./network/detect-netns";
import { INSIDE_AGENT_PORT } from "./network/sandbox-network";
import { SandboxNetworks } from "./network/sandbox-networks";
import {
  type ProcessRuntimeOptions,
  type ProcessRuntimeSettings,
  resolveSettings,
} from "./process-runtime-options";
import {
  assertSafeSandboxId,
  createSandboxDirs,
  isSafeSandboxId,
  readSandboxSecrets,
  readSandboxState,
  resolveSandboxPaths,
  type SandboxSecrets,
  syncDirectory,
  updateSandboxState,
  writeLaunchRecord,
} from "./sandbox-files";
import {
  findSandboxProcesses,
  freezeSandbox,
  killSandboxProcesses,
  signalSandbox,
  stopSandboxProcesses,
  waitForExit,
} from "./sandbox-processes";
import {
  type AgentServerRun,
  adoptSandbox,
  readRunState,
  type SandboxRecord,
} from "./sandbox-record";

export interface ProcessRuntimeEvents {
  exit: [sandboxId: string, detail: string];
}

type Liveness = "alive" | "paused" | "exited";

export {
  detectNetns,
  type NetnsLink,
  type NetnsLinkChoice,
  type NetnsSupport,
} from "./network/detect-netns";
export type {
  ProcessNetworking,
  ProcessRuntimeOptions,
  ProcessSandboxing,
} from "./process-runtime-options";

/** How long delete waits for processes that are exiting to be gone. */
const EXIT_WAIT_MS = 2000;
/** How long pause waits for Linux to report every process of the sandbox stopped. */
const FREEZE_TIMEOUT_MS = 2000;
/** How often `waitUntilReady` probes /health while the agent server starts. */
const READY_PROBE_INTERVAL_MS = 10;
/** ...and how often it reads /proc meanwhile for an exit or a pause. */
const READY_GIVE_UP_EVERY_MS = 50;

/**
 * Sandboxes as processes on this machine: each one an agent server in its own directory, under
 * bubblewrap when it can be used here (isolation `namespaces`, see isolation/build-bwrap-args.ts),
 * else as a plain process group (isolation `none`). The processes outlive the control plane
 * (`sandbox.json` lets the next one adopt them). Pause is SIGSTOP, so a paused sandbox keeps its
 * memory but uses no CPU; it and delete reach every process of the sandbox — bwrap's own too —
 * found by the marker in the launched process's environment (see sandbox-processes.ts). Limits
 * (pids, memory) and every sandbox's share of the CPU are a cgroup's, where cgroups are writable
 * (see README.md).
 */
export class ProcessRuntime extends EventEmitter<ProcessRuntimeEvents> implements SandboxRuntime {
  readonly kind = "process" as const;
  readonly isolation: IsolationLevel;
  readonly isolationDetail?: string;
  readonly network: NetworkIsolation;
  /** How sandboxes with a network of their own reach out (null: they share the host's). */
  readonly networkLink: NetnsLink | null;
  readonly agentServerPort?: number;
  private readonly settings: ProcessRuntimeSettings;
  private readonly logger: RuntimeLogger;
  private readonly records = new Map<string, SandboxRecord>();
  private readonly lock = new KeyedLock();
  private readonly view: SharedViewKeeper;
  private readonly networks: SandboxNetworks;
  private watchTimer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(options: ProcessRuntimeOptions) {
    super();
    this.settings = resolveSettings(options);
    this.isolation = this.settings.bwrap ? "namespaces" : "none";
    this.network = this.settings.netns ? "own" : "shared";
    this.networkLink = this.settings.netnsLink;
    // In a namespace of its own it listens on a fixed port; sharing the host's, on one it picked.
    if (this.network === "own") this.agentServerPort = INSIDE_AGENT_PORT;
    this.logger = options.logger ?? silentLogger;
    const { seccomp } = this.settings;
    if (seccomp) this.isolationDetail = describeSeccomp(seccomp);
    if (seccomp && !seccomp.usable) {
      this.logger.warn(
        { reason: seccomp.reason },
        "process sandboxes run WITHOUT a seccomp filter",
      );
    }
    const { rootDir, sandboxUid, agentServerEntry } = this.settings;
    this.view = new SharedViewKeeper(rootDir, sandboxUid, agentServerEntry, this.logger, {
      ownNetwork: this.network === "own",
    });
    this.networks = new SandboxNetworks({
      rootDir: this.settings.rootDir,
      tools: this.settings.netns,
      link: this.settings.netnsLink,
      operator: this.settings.operatorEgress,
      logger: this.logger,
      recordOf: (sandboxId) => this.records.get(sandboxId),
      resolveName: this.settings.resolveName,
    });
  }

  /**
   * Records the sandbox before anything runs: its directories, `secrets.json` and a `sandbox.json`
   * without a pid, all flushed to disk. A control plane may acknowledge a create once this has
   * resolved: a successor that finds the record with no live agent server relaunches it (resume).
   */
  async register(options: StartSandboxOptions): Promise<void> {
    assertSafeSandboxId(options.sandboxId);
    await this.lock.run(options.sandboxId, async () => {
      const record = await this.createRecord(options, true);
      record.pendingLaunch = true;
      this.logger.info({ sandboxId: options.sandboxId }, "sandbox registered");
    });
  }

  /**
   * Launches a registered sandbox, or registers and launches a new one. `image` and
   * `workingDir` do not apply and are ignored; of `resources`, `pids` and `memoryMb` are
   * enforced where cgroups can be used, `cpu` is not (the CPU weight of all sandboxes together is).
   */
  async start(options: StartSandboxOptions): Promise<RuntimeSandbox> {
    const { sandboxId } = options;
    assertSafeSandboxId(sandboxId);
    return this.lock.run(sandboxId, async () => {
      const registered = this.records.get(sandboxId);
      const record = registered?.pendingLaunch ? registered : await this.createRecord(options);
      record.pendingLaunch = false;
      await this.launch(record, record.secrets ?? (await this.requireSecrets(record)));
      return this.snapshot(record, record.exitDetail === null ? "starting" : "exited");
    });
  }

  /**
   * A new sandbox's directories and durable launch record (no process yet). For `register`, also
   * the cgroup of its first launch, made while the record is flushed (so `start` need not).
   */
  private async createRecord(
    options: StartSandboxOptions,
    prepareCgroup = false,
  ): Promise<SandboxRecord> {
    const { sandboxId } = options;
    const paths = resolveSandboxPaths(this.settings.rootDir, sandboxId);
    if (this.records.has(sandboxId) || (await readSandboxState(paths)) !== null) {
      throw new Error(`sandbox ${sandboxId} already exists`);
    }
    await createSandboxDirs(paths);
    const secrets = { sessionApiKey: options.sessionApiKey, env: { ...options.env } };
    const record: SandboxRecord = {
      sandboxId,
      paths,
      labels: { ...options.labels },
      command: options.command?.length ? [...options.command] : null,
      limits: limitsOf(options),
      cgroupName: null,
      egress: options.egress ?? DEFAULT_SANDBOX_EGRESS,
      netns: null,
      resolverPort: null,
      netnsAddress: null,
      proxyPort: null,
      secrets,
      run: null,
      exitDetail: null,
      cleanup: null,
      deleting: false,
      pendingLaunch: false,
      stateWrite: null,
      preparedCgroup: null,
      preparedNetns: null,
    };
    // Before the launch record is written: it names the namespace (a pooled one has a name no
    // successor could guess).
    const netns = this.networks.prepare(record);
    // The sandbox's directory entry and its files are flushed at once (none depends on another).
    const written = Promise.all([
      syncDirectory(this.settings.rootDir),
      writeLaunchRecord(paths, secrets, launchState(this.settings, record)),
    ]);
    const cgroup = prepareCgroup
      ? prepareRunCgroup(runCgroupInput(this.settings, record), this.logger)
      : null;
    // Both settled before either outcome is reported: a delete after a failed register then finds
    // the cgroup it removes by name. A cgroup that could not be made fails the launch, as before.
    // (allSettled also marks a failed cgroup handled: the launch that takes it sees the failure.)
    await Promise.allSettled([written, cgroup, netns]);
    await written;
    record.preparedCgroup = cgroup;
    record.preparedNetns = netns;
    this.records.set(sandboxId, record);
    return record;
  }

  async waitUntilReady(sandboxId: string, timeoutMs: number): Promise<RuntimeSandbox> {
    const record = await this.requireRecord(sandboxId);
    const run = record.run;
    if (run === null || record.exitDetail !== null) {
      throw new Error(`sandbox ${sandboxId} is not ready: ${record.exitDetail ?? "not running"}`);
    }
    try {
      await waitForHealth(this.urlOf(run), {
        timeoutMs,
        probeTimeoutMs: this.settings.probeTimeoutMs,
        // Often: with the default 100 ms interval, RUNNING would wait for the next step after the
        // agent server is up. A refused probe on loopback costs well under a ms.
        intervalMs: READY_PROBE_INTERVAL_MS,
        giveUpEveryMs: READY_GIVE_UP_EVERY_MS,
        giveUpWhen: async () => {
          const liveness = await this.readLiveness(record);
          if (liveness === "paused") return "it is paused";
          return liveness === "exited" ? (record.exitDetail ?? "agent server exited") : null;
        },
      });
    } catch (error) {
      const reason = errorMessage(error);
      throw new Error(`sandbox ${sandboxId} is not ready: ${reason}`);
    }
    // Running means recorded too: a successor control plane finds (and adopts) this run.
    const unrecorded = await record.stateWrite;
    if (unrecorded !== null) throw new Error(`sandbox ${sandboxId} is not ready: ${unrecorded}`);
    return this.snapshot(record, "running");
  }

  async inspect(sandboxId: string): Promise<RuntimeSandbox> {
    const record = await this.findRecord(sandboxId);
    return record ? this.observe(record) : missingSandbox(sandboxId);
  }

  async pause(sandboxId: string): Promise<RuntimeSandbox> {
    return this.lock.run(sandboxId, async () => {
      const record = await this.requireRecord(sandboxId);
      const liveness = await this.readLiveness(record);
      if (liveness === "exited" || record.run === null) {
        throw new Error(`cannot pause sandbox ${sandboxId}: ${record.exitDetail}`);
      }
      // What its enforcer refused while it ran, before it goes quiet.
      await this.networks.reportRefused(record);
      if (liveness === "alive") {
        // Every process, not only the launched one: report `paused` once Linux says all are.
        const frozen = await freezeSandbox(record.paths.dir, FREEZE_TIMEOUT_MS);
        const fields = { sandboxId, pid: record.run.pid };
        if (frozen) this.logger.info(fields, "sandbox paused");
        else this.logger.warn(fields, "sandbox paused, but not every process has stopped yet");
      }
      return this.observe(record);
    });
  }

  async resume(sandboxId: string): Promise<RuntimeSandbox> {
    const changed = await this.lock.run(sandboxId, async () => {
      const record = await this.requireRecord(sandboxId);
      const liveness = await this.readLiveness(record);
      if (liveness === "alive") return false;
      if (liveness === "paused") {
        await signalSandbox(record.paths.dir, "SIGCONT");
        this.logger.info({ sandboxId }, "sandbox resumed");
      } else {
        await this.restart(record);
      }
      return true;
    });
    // Outside the lock: a delete need not wait for a slow health check.
    if (!changed) return this.inspect(sandboxId);
    return this.waitUntilReady(sandboxId, this.settings.resumeTimeoutMs);
  }

  async delete(sandboxId: string): Promise<void> {
    if (!isSafeSandboxId(sandboxId)) return;
    await this.lock.run(sandboxId, async () => {
      const record = await this.findRecord(sandboxId);
      if (record) record.deleting = true;
      // Its directory goes below: no write into it may still be under way.
      await record?.stateWrite;
      if (record) await this.networks.reportRefused(record);
      const { dir } = resolveSandboxPaths(this.settings.rootDir, sandboxId);
      const pids = (await findSandboxProcesses(dir)).map((found) => found.pid);
      await stopSandboxProcesses(dir, this.settings.stopGraceMs);
      // Deleted means gone: also the ones still tearing down (pasta leaves its namespaces).
      await waitForExit(pids, EXIT_WAIT_MS);
      // By its name, not only the recorded one: a launch interrupted before sandbox.json was
      // written leaves a cgroup no record names.
      await removeRunCgroup(record?.cgroupName ?? cgroupNameFor(dir, sandboxId)).catch(
        (error: unknown) => this.logger.error({ sandboxId, err: error }, "cgroup not removed"),
      );
      // pasta went with the processes (it carries the marker); the namespace and its ruleset now.
      await this.networks.remove(sandboxId, record, dir);
      await rm(dir, { recursive: true, force: true });
      this.records.delete(sandboxId);
      if (record) this.logger.info({ sandboxId }, "sandbox deleted");
    });
  }

  /**
   * Records the policy (in `sandbox.json`, so relaunches and a successor control plane keep it)
   * and, while the sandbox has its namespace, replaces its ruleset in one transaction: new
   * connections follow at once, established ones go on. On the host's network nothing enforces
   * it (`network` says so).
   */
  async setEgressPolicy(sandboxId: string, policy: SandboxEgressPolicy): Promise<void> {
    await this.lock.run(sandboxId, async () => {
      const record = await this.requireRecord(sandboxId);
      await record.stateWrite;
      const live = await this.networks.setPolicy(record, policy);
      await updateSandboxState(record.paths, (state) => ({ ...state, egress: policy }));
      this.logger.info({ sandboxId, enforced: live }, "egress policy set");
    });
  }

  onEgressDenied(listener: (denial: EgressDenial) => void): void {
    this.networks.onDenied(listener);
  }

  /**
   * Reports (through `onEgressDenied`) the connections to raw addresses the sandbox's ruleset
   * refused since the last read: the ruleset counts them per destination, and they are read on
   * demand — here (the control plane asks while the sandbox is active; without a fork while the
   * namespace's counters say nothing was refused since: RefusalGate), and by pause, a policy
   * change and delete — never by a timer of the runtime's, so idle sandboxes cost nothing. Names
   * refused by the resolver are reported at once.
   */
  async reportEgressDenials(sandboxId: string): Promise<void> {
    const record = await this.findRecord(sandboxId);
    if (record) await this.networks.pullRefused(record);
  }

  async list(): Promise<RuntimeSandbox[]> {
    const ids = new Set(this.records.keys());
    const entries = await readdir(this.settings.rootDir, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      if (entry.isDirectory() && isSafeSandboxId(entry.name)) ids.add(entry.name);
    }
    const sandboxes = await Promise.all([...ids].map((id) => this.inspect(id)));
    return sandboxes.filter((sandbox) => sandbox.state !== "missing");
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.watchTimer) clearInterval(this.watchTimer);
    this.watchTimer = null;
    this.removeAllListeners();
    await this.networks.close();
    // Launches recorded before the control plane goes, so its successor adopts them.
    await Promise.all([...this.records.values()].map((record) => record.stateWrite));
  }

  private async launch(record: SandboxRecord, secrets: SandboxSecrets): Promise<void> {
    // One writer of sandbox.json at a time: the previous launch's record first.
    await record.stateWrite;
    let network: RunNetwork | null;
    try {
      network = await this.networks.forLaunch(record);
    } catch (error) {
      record.run = null;
      record.exitDetail = `its network could not be set up (${errorMessage(error)})`;
      this.logger.warn({ sandboxId: record.sandboxId, detail: record.exitDetail }, "not launched");
      return;
    }
    const launched = await launchRun(
      this.settings,
      this.view,
      this.logger,
      record,
      secrets,
      network,
    );
    if (!launched.ok) {
      record.run = null;
      record.exitDetail = launched.detail;
      return;
    }
    const { run } = launched;
    // Written while the caller waits for /health; waitUntilReady reports it, delete awaits it.
    record.stateWrite = launched.stateWritten;
    void launched.stateWritten.then((unrecorded) => {
      if (unrecorded !== null) {
        this.logger.error(
          { sandboxId: record.sandboxId, detail: unrecorded },
          "launch not recorded",
        );
      }
    });
    // Attached before record.run is set, yet it runs after: a promise callback never runs at once.
    run.exitRecorded = launched.exited
      .then((info) => this.recordChildExit(record, run, info))
      .catch((error: unknown) =>
        this.logger.error({ sandboxId: record.sandboxId, err: error }, "exit not recorded"),
      );
    record.run = run;
    record.exitDetail = null;
  }

  private async requireSecrets(record: SandboxRecord): Promise<SandboxSecrets> {
    const secrets = record.secrets ?? (await readSandboxSecrets(record.paths));
    if (secrets === null) {
      throw new Error(`cannot restart sandbox ${record.sandboxId}: its session key is not on disk`);
    }
    record.secrets = secrets;
    return secrets;
  }

  private async restart(record: SandboxRecord): Promise<void> {
    const secrets = await this.requireSecrets(record);
    record.pendingLaunch = false;
    this.logger.info({ sandboxId: record.sandboxId }, "restarting agent server");
    // Leftovers of the previous run share the marker and would be taken for the new one's.
    await record.cleanup;
    await killSandboxProcesses(record.paths.dir);
    await this.launch(record, secrets);
    if (record.exitDetail !== null) {
      throw new Error(`sandbox ${record.sandboxId} could not be restarted: ${record.exitDetail}`);
    }
  }

  private async recordChildExit(record: SandboxRecord, run: AgentServerRun, info: ExitInfo) {
    if (record.run !== run) return;
    // A crash's reason is in its output; a signal's is not, and the log would only be noise.
    const crashed = info.signal === null && info.code !== 0 && !record.deleting;
    const tail = crashed ? await readLogTail(record.paths.logFile, run.logOffset) : "";
    const oom = run.cgroup ? await describeOom(run.cgroup, record.limits) : "";
    this.recordExit(record, withOutput(`${describeExit(info)}${oom}`, tail));
  }

  private recordExit(record: SandboxRecord, detail: string): void {
    if (record.exitDetail !== null) return;
    record.exitDetail = detail;
    // Deleting takes care of the processes itself; after close, the next control plane does.
    if (record.deleting || this.closed) return;
    // Commands the agent server started would otherwise live on in a sandbox reported exited.
    record.cleanup = killSandboxProcesses(record.paths.dir).catch((error: unknown) =>
      this.logger.error({ sandboxId: record.sandboxId, err: error }, "leftovers not killed"),
    );
    this.logger.warn({ sandboxId: record.sandboxId, detail }, "agent server exited");
    try {
      this.emit("exit", record.sandboxId, detail);
    } catch (error) {
      this.logger.error({ sandboxId: record.sandboxId, err: error }, "exit listener failed");
    }
  }

  /** Process-level state, without asking the agent server; records an exit it discovers. */
  private async readLiveness(record: SandboxRecord): Promise<Liveness> {
    const run = record.run;
    if (run === null || record.exitDetail !== null) return "exited";
    const proc = await readRunState(run);
    if (proc === "stopped") return "paused";
    if (proc === "alive") return "alive";
    if (run.exitRecorded) {
      // Our own child: its exit event, with code and signal, is about to arrive.
      await Promise.race([run.exitRecorded, sleep(1000)]);
      this.recordExit(record, "agent server exited");
    } else {
      this.recordExit(
        record,
        `agent server exited (pid ${run.pid}; started by an earlier control plane, so its exit status is unknown)`,
      );
    }
    return "exited";
  }

  private async observe(record: SandboxRecord): Promise<RuntimeSandbox> {
    // Only while start() waits for the first listening line.
    if (record.run === null && record.exitDetail === null) return this.snapshot(record, "starting");
    const liveness = await this.readLiveness(record);
    if (liveness === "exited" || record.run === null) return this.snapshot(record, "exited");
    if (liveness === "paused") return this.snapshot(record, "paused");
    const probe = await probeHealth(this.urlOf(record.run), this.settings.probeTimeoutMs);
    if (probe.ok) return this.snapshot(record, "running");
    return this.snapshot(record, "starting", `agent server not answering /health: ${probe.reason}`);
  }

  private snapshot(record: SandboxRecord, state: RuntimeState, detail?: string): RuntimeSandbox {
    const run = state === "exited" ? null : record.run;
    return {
      sandboxId: record.sandboxId,
      state,
      agentServerUrl: run ? this.urlOf(run) : null,
      detail: detail ?? (state === "exited" ? record.exitDetail : null),
      labels: { ...record.labels },
    };
  }

  /** The namespace's veth address while its agent server runs; null on pasta or the host's network. */
  async addressOf(sandboxId: string): Promise<string | null> {
    const record = await this.findRecord(sandboxId);
    return record?.run?.host ?? null;
  }

  private urlOf(run: AgentServerRun): string {
    return `http://${run.host ?? this.settings.host}:${run.port}`;
  }

  private async requireRecord(sandboxId: string): Promise<SandboxRecord> {
    const record = await this.findRecord(sandboxId);
    if (!record) throw new Error(`sandbox ${sandboxId} not found`);
    return record;
  }

  /** The sandbox from memory, or adopted from its `sandbox.json` (after a control-plane restart). */
  private async findRecord(sandboxId: string): Promise<SandboxRecord | null> {
    const known = this.records.get(sandboxId);
    if (known || !isSafeSandboxId(sandboxId)) return known ?? null;
    const paths = resolveSandboxPaths(this.settings.rootDir, sandboxId);
    const state = await readSandboxState(paths);
    if (state === null || state.sandboxId !== sandboxId) return null;
    const adopted = await adoptSandbox(paths, state);
    const raced = this.records.get(sandboxId);
    if (raced) return raced;
    this.records.set(sandboxId, adopted);
    this.logger.info(
      { sandboxId, pid: state.pid, running: adopted.exitDetail === null },
      "sandbox adopted",
    );
    if (adopted.exitDetail === null) {
      this.watchAdopted();
      this.networks.adopt(adopted);
    }
    return adopted;
  }

  /** Adopted processes are not our children, so no exit event comes: poll /proc instead. */
  private watchAdopted(): void {
    if (this.watchTimer || this.closed) return;
    this.watchTimer = setInterval(() => {
      const adopted = [...this.records.values()].filter(
        (record) => record.exitDetail === null && record.run?.exitRecorded === null,
      );
      if (adopted.length === 0 && this.watchTimer) {
        clearInterval(this.watchTimer);
        this.watchTimer = null;
      }
      for (const record of adopted) void this.readLiveness(record);
    }, this.settings.watchIntervalMs);
    this.watchTimer.unref();
  }
}

function limitsOf(options: StartSandboxOptions): SandboxLimits {
  const { pids, memoryMb } = options.resources ?? {};
  return {
    ...(pids !== undefined ? { pids } : {}),
    ...(memoryMb !== undefined ? { memoryMb } : {}),
  };
}

function missingSandbox(sandboxId: string): RuntimeSandbox {
  return { sandboxId, state: "missing", agentServerUrl: null, detail: null, labels: {} };
}

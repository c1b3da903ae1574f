import type { SandboxRow } from "@sandbox-server/db";
import type { RuntimeSandbox } from "@sandbox-server/runtime";
import { errorMessage } from "@sandbox-server/runtime/error-message";
import type { CoreConfig, CoreDeps } from "../../deps";
import { removeSandbox } from "../service/delete-sandbox";
import { relaunchSandbox } from "../service/relaunch-sandbox";
import { markRunning } from "../service/start-sandbox";
import { updateSandbox } from "../service/status";
import { type RefillDeps, refillWarmPool } from "../warm-pool/refill";

/**
 * Over a shared store, a STARTING or STOPPING row that has not moved for this long while nobody
 * holds its lock was left by a replica that died (a live one holds the lock while it moves it).
 */
const IN_FLIGHT_GRACE_MS = 10_000;
const IN_FLIGHT = new Set(["STARTING", "STOPPING"]);

/** What the supervisor uses: the records, the runtime, the warm pool, and its timings. */
export type SupervisorDeps = RefillDeps &
  Pick<CoreDeps, "sharedStore"> & {
    config: Pick<CoreConfig, "healthGraceMs" | "supervisorIntervalMs" | "supervisorSweepMs">;
  };

/**
 * Keeps records true to the runtime: reconciles at start (adopt, mark vanished, remove orphans,
 * finish interrupted moves) and then checks liveness on a timer. The store is the record of
 * intent; the runtime is the truth about liveness.
 *
 * Over a shared store it runs on the replica holding the duties lease, started when that replica
 * wins it (so "at start" means "at takeover") while other replicas keep serving requests: a row
 * whose lock another replica holds is left to it (`tryRun`), and a STARTING or STOPPING row only
 * counts as interrupted once it is free and has not moved for IN_FLIGHT_GRACE_MS; every pass
 * looks for such rows again.
 */
export class SandboxSupervisor {
  private timer: NodeJS.Timeout | null = null;
  private ticking = false;
  private settling: Promise<void> | null = null;
  /** When each RUNNING sandbox first failed its health check in the current streak. */
  private readonly unhealthySince = new Map<string, number>();
  /** When the last pass that inspected every sandbox began; null before the first. */
  private sweptAt: number | null = null;

  constructor(
    private readonly deps: SupervisorDeps,
    /**
     * Settles conversation creates that were cut short (`reconcileStartTasks`, handed in by the
     * core): the conversations' part of an interrupted start.
     */
    private readonly settleStartTasks: (startedAt: number) => Promise<void>,
  ) {}

  async start(): Promise<void> {
    // Creates cut short come first: a sandbox that is rolled back is removed, not relaunched, and
    // the reconcile then finds records and runtime agreeing.
    await this.settleInterruptedCreates(this.deps.now());
    await this.reconcile();
    this.deps.runtime.on?.("exit", this.onExit);
    this.deps.runtime.on?.("recovered", this.onRecovered);
    this.timer = setInterval(() => void this.tick(), this.deps.config.supervisorIntervalMs);
    this.timer.unref();
    const pool = this.deps.warmPool;
    pool.active = true;
    pool.wake = () => void this.refillPool();
    void this.refillPool();
  }

  stop(): void {
    const pool = this.deps.warmPool;
    pool.active = false;
    pool.wake = null;
    this.deps.runtime.off?.("exit", this.onExit);
    this.deps.runtime.off?.("recovered", this.onRecovered);
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** The runtime saw a sandbox end unasked (crash, OOM, killed): check it now, not at the next tick. */
  private readonly onExit = (sandboxId: string): void => {
    void this.checkExited(sandboxId);
  };

  private async checkExited(sandboxId: string): Promise<void> {
    try {
      const row = await this.deps.repos.sandboxes.get(sandboxId);
      if (row && (row.status === "RUNNING" || row.status === "PAUSED")) await this.check(row);
    } catch (error) {
      this.deps.log.error({ sandboxId, reason: errorMessage(error) }, "exit check failed");
    }
  }

  /**
   * The runtime can reach a sandbox again (its Docker host answers again): one marked ERROR
   * because the host was lost is adopted if its agent server answers; one without a record (deleted
   * while its host was down) is removed, as reconcile removes orphans.
   */
  private readonly onRecovered = (sandboxId: string, detail: string): void => {
    void this.adoptRecovered(sandboxId, detail);
  };

  private async adoptRecovered(sandboxId: string, detail: string): Promise<void> {
    const { deps } = this;
    try {
      await deps.locks.run(sandboxId, async () => {
        const row = await deps.repos.sandboxes.get(sandboxId);
        if (!row) {
          deps.log.warn({ sandboxId }, "removing recovered sandbox with no record");
          await deps.runtime.delete(sandboxId);
          return;
        }
        if (row.status !== "ERROR" || row.runtime !== deps.runtime.kind) return;
        const state = await deps.runtime.inspect(sandboxId);
        if (state.state !== "running") return;
        deps.log.info({ sandboxId, detail }, "adopting a sandbox that runs again");
        await markRunning(deps, sandboxId, state.agentServerUrl, `Adopted again: ${detail}`);
      });
    } catch (error) {
      deps.log.error({ sandboxId, reason: errorMessage(error) }, "recovered sandbox not adopted");
    }
  }

  /** Compares every record with what the runtime runs, and fixes both sides. */
  async reconcile(): Promise<void> {
    const { deps } = this;
    const observed = new Map((await deps.runtime.list()).map((s) => [s.sandboxId, s]));
    const records = (await deps.repos.sandboxes.listAll()).filter(
      (r) => r.runtime === deps.runtime.kind,
    );
    const known = new Set(records.map((r) => r.id));
    for (const id of observed.keys()) {
      if (known.has(id)) continue;
      deps.log.warn({ sandboxId: id }, "removing orphan sandbox with no record");
      await deps.runtime.delete(id).catch((error: unknown) => {
        deps.log.error({ sandboxId: id, reason: errorMessage(error) }, "orphan removal failed");
      });
    }
    for (const row of records) {
      if (deps.sharedStore) await this.reconcileIfFree(row, observed.get(row.id));
      else await deps.locks.run(row.id, () => this.reconcileOne(row, observed.get(row.id)));
    }
  }

  /** Shared store: reconciles the row unless another move of it is (or may be) under way. */
  private async reconcileIfFree(row: SandboxRow, seen: RuntimeSandbox | undefined): Promise<void> {
    const { deps } = this;
    // Maybe just created by a live replica that has not taken its lock yet: looked at later.
    if (IN_FLIGHT.has(row.status) && deps.now() - row.updatedAt < IN_FLIGHT_GRACE_MS) return;
    await deps.locks
      .tryRun(row.id, () => this.reconcileOne(row, seen))
      .catch((error: unknown) => {
        deps.log.error({ sandboxId: row.id, reason: errorMessage(error) }, "reconcile failed");
      });
  }

  /**
   * Conversation creates cut short by a control plane that died: each is completed or rolled
   * back (see reconcileStartTasks). At start; over a shared store also on every pass, since a
   * replica can die at any time.
   */
  private settleInterruptedCreates(startedAt: number): Promise<void> {
    this.settling ??= this.settleStartTasks(startedAt)
      .catch((error: unknown) => {
        this.deps.log.error({ reason: errorMessage(error) }, "start task reconcile failed");
      })
      .finally(() => {
        this.settling = null;
      });
    return this.settling;
  }

  /** Resolves once a settling of interrupted creates under way has finished. */
  async createsSettled(): Promise<void> {
    await this.settling;
  }

  /** Shared store: STARTING and STOPPING rows whose replica died are finished here. */
  private async recoverAbandoned(): Promise<void> {
    const { deps } = this;
    const rows = (await deps.repos.sandboxes.listByStatus([...IN_FLIGHT])).filter(
      (r) => r.runtime === deps.runtime.kind && deps.now() - r.updatedAt >= IN_FLIGHT_GRACE_MS,
    );
    if (rows.length === 0) return;
    const observed = new Map((await deps.runtime.list()).map((s) => [s.sandboxId, s]));
    for (const row of rows) await this.reconcileIfFree(row, observed.get(row.id));
  }

  /**
   * One record against the runtime after a restart. The store holds what was acknowledged:
   * - STOPPING: a delete was under way: it is finished.
   * - STARTING or RUNNING: wanted running. Adopted if its agent server runs; relaunched (from its
   *   workspace, same key and data) if it exited, was never launched, or is still frozen by a
   *   resume the restart cut short; started from its record if the runtime never created it.
   * - PAUSED: stays paused. Frozen again if it runs; if its processes are gone it stays PAUSED
   *   and resume relaunches it from its workspace.
   * - ERROR: left as it is (resume retries it).
   * Relaunches run in the background, each under its sandbox's lock.
   */
  private async reconcileOne(row: SandboxRow, seen: RuntimeSandbox | undefined): Promise<void> {
    const { deps } = this;
    const current = await deps.repos.sandboxes.get(row.id);
    if (!current) return;
    if (current.status === "STOPPING") {
      // A delete was interrupted: finish it.
      await removeSandbox(deps, current).catch(() => undefined);
      return;
    }
    if (current.status === "ERROR") return;
    const state = seen ? await deps.runtime.inspect(row.id) : undefined;
    if (!state || state.state === "missing") {
      if (current.status === "STARTING") {
        this.relaunchLater(current, "it had not been launched yet");
        return;
      }
      await updateSandbox(deps, row.id, {
        status: "ERROR",
        statusDetail: "The sandbox vanished while the control plane was down: removed outside it",
      });
      return;
    }
    if (state.agentServerUrl && state.agentServerUrl !== current.agentServerUrl) {
      await updateSandbox(deps, row.id, { agentServerUrl: state.agentServerUrl });
    }
    const wanted = current.status === "PAUSED" ? "paused" : "running";
    if (state.state === "exited") {
      const why = state.detail ?? "its agent server had exited";
      if (wanted === "running") this.relaunchLater(current, why);
      else await this.keepPaused(current, why);
      return;
    }
    if (state.state === "paused" && current.status === "STARTING") {
      this.relaunchLater(current, "a resume was under way");
      return;
    }
    if (wanted === "paused" && state.state !== "paused") {
      await this.pauseAgain(current);
      return;
    }
    if (current.status === "STARTING" && state.state === "starting") {
      // Cut short by the restart: a process that is coming up, or a container created but
      // never started. Resume finishes either (and waits for health).
      this.relaunchLater(current, "its start was under way");
      return;
    }
    await this.apply(current, state, true);
  }

  private relaunchLater(row: SandboxRow, reason: string): void {
    const { deps } = this;
    void deps.locks
      .run(row.id, async () => {
        const current = await deps.repos.sandboxes.get(row.id);
        if (current && current.status !== "STOPPING") await relaunchSandbox(deps, current, reason);
      })
      .catch((error: unknown) => {
        deps.log.error({ sandboxId: row.id, reason: errorMessage(error) }, "relaunch failed");
      });
  }

  /** PAUSED in the store but running: the pause was acknowledged, so it holds. */
  private async pauseAgain(row: SandboxRow): Promise<void> {
    const { deps } = this;
    deps.log.warn({ sandboxId: row.id }, "sandbox recorded PAUSED was running: pausing it again");
    await deps.runtime.pause(row.id).catch(async (error: unknown) => {
      await updateSandbox(deps, row.id, {
        status: "ERROR",
        statusDetail: `Recorded PAUSED but running, and pausing it again failed: ${errorMessage(error)}`,
      });
    });
  }

  /** A PAUSED sandbox whose processes ended stays PAUSED: resume relaunches it. */
  private async keepPaused(row: SandboxRow, why: string): Promise<void> {
    const detail = `Its processes ended while paused (${why}); resume relaunches it from its workspace`;
    if (row.statusDetail !== detail)
      await updateSandbox(this.deps, row.id, { statusDetail: detail });
  }

  /** One liveness pass over every sandbox that should be alive. */
  async tick(): Promise<void> {
    if (this.ticking) return;
    this.ticking = true;
    try {
      await this.checkSandboxes();
      if (this.deps.sharedStore) {
        await this.recoverAbandoned();
        void this.settleInterruptedCreates(this.deps.now());
      }
      // At start the pool is refilled (or emptied of leftovers) whatever its size.
      if (this.deps.config.warmPoolSize > 0) await this.refillPool();
    } catch (error) {
      this.deps.log.error({ reason: errorMessage(error) }, "supervisor pass failed");
    } finally {
      this.ticking = false;
    }
  }

  /**
   * Every RUNNING and PAUSED sandbox once per `supervisorSweepMs`; in between only those whose
   * last check failed, so the health grace is counted at tick granularity. Exits come sooner, as
   * the runtime's `exit` events: the cost of a pass follows what changed, not how many run.
   */
  private async checkSandboxes(): Promise<void> {
    const { deps } = this;
    const now = deps.now();
    const sweep = this.sweptAt === null || now - this.sweptAt >= deps.config.supervisorSweepMs;
    if (!sweep && this.unhealthySince.size === 0) return;
    if (sweep) this.sweptAt = now;
    const rows = (await deps.repos.sandboxes.listByStatus(["RUNNING", "PAUSED"])).filter(
      (r) => r.runtime === deps.runtime.kind && (sweep || this.unhealthySince.has(r.id)),
    );
    // A suspect that is no longer RUNNING (paused, deleted, ERROR) is no longer one.
    const listed = new Set(rows.map((r) => r.id));
    for (const id of this.unhealthySince.keys())
      if (!listed.has(id)) this.unhealthySince.delete(id);
    await Promise.all(rows.map((row) => this.check(row)));
  }

  /**
   * Resolves once a warm-pool refill under way has recorded what it starts; after `stop()`
   * nothing new is started (the launches of recorded members still finish on their own).
   */
  async poolSettled(): Promise<void> {
    await this.deps.warmPool.refilling;
  }

  /** Keeps the warm pool full (a no-op without one); never fails the pass. */
  private async refillPool(): Promise<void> {
    await refillWarmPool(this.deps).catch((error: unknown) => {
      this.deps.log.error({ reason: errorMessage(error) }, "warm pool refill failed");
    });
  }

  private async check(row: SandboxRow): Promise<void> {
    const state = await this.deps.runtime.inspect(row.id).catch(() => undefined);
    if (!state) return;
    // Record and runtime agree (the usual case): nothing to fix, no lock to take.
    if (
      (row.status === "RUNNING" && state.state === "running") ||
      (row.status === "PAUSED" && state.state === "paused")
    ) {
      this.unhealthySince.delete(row.id);
      return;
    }
    // Re-read under the lock: a pause/resume/delete may have moved it meanwhile.
    await this.deps.locks.run(row.id, async () => {
      const current = await this.deps.repos.sandboxes.get(row.id);
      if (current && current.status === row.status) await this.apply(current, state, false);
    });
  }

  private async apply(row: SandboxRow, state: RuntimeSandbox, recovering: boolean): Promise<void> {
    const { deps } = this;
    if (row.status === "PAUSED" && state.state === "exited") {
      await this.keepPaused(row, state.detail ?? "its agent server exited");
      return;
    }
    if (row.status === "PAUSED" && (state.state === "running" || state.state === "starting")) {
      await this.pauseAgain(row);
      return;
    }
    if (state.state === "exited" || state.state === "missing") {
      this.unhealthySince.delete(row.id);
      const detail =
        state.state === "missing"
          ? `The sandbox vanished: ${state.detail ?? "removed outside the control plane"}`
          : (state.detail ?? "The sandbox exited");
      await updateSandbox(deps, row.id, { status: "ERROR", statusDetail: detail });
      return;
    }
    if (state.state === "paused") {
      this.unhealthySince.delete(row.id);
      if (row.status !== "PAUSED") await updateSandbox(deps, row.id, { status: "PAUSED" });
      return;
    }
    if (state.state === "running") {
      this.unhealthySince.delete(row.id);
      if (row.status !== "RUNNING") await markRunning(deps, row.id, state.agentServerUrl);
      return;
    }
    // "starting": alive but not answering /health.
    if (row.status !== "RUNNING" && !recovering) return;
    const since = this.unhealthySince.get(row.id) ?? deps.now();
    this.unhealthySince.set(row.id, since);
    if (deps.now() - since >= deps.config.healthGraceMs) {
      this.unhealthySince.delete(row.id);
      await updateSandbox(deps, row.id, {
        status: "ERROR",
        statusDetail: `The agent server stopped answering its health check for ${deps.config.healthGraceMs} ms`,
      });
    }
  }
}

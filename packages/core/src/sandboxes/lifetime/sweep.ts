import type { SandboxRow } from "@sandbox-server/db";
import { errorMessage } from "@sandbox-server/runtime/error-message";
import type { CoreConfig, CoreDeps } from "../../deps";
import { type StopSandboxDeps, stopAndRemove } from "../service/delete-sandbox";
import { pauseRunning } from "../service/pause-sandbox";
import { type LifetimeStep, lifetimeStep } from "./rules";

/** Rows taken per sweep: a backlog larger than this is worked off over the next sweeps. */
const SWEEP_BATCH = 500;
/** A pause or delete that failed (runtime unreachable, messages that would not drain) is retried after this. */
const RETRY_MS = 30_000;

type Later = Extract<LifetimeStep, { kind: "later" }>;

/**
 * Applies the lifetime rules (timeout, idle pause, retention of PAUSED sandboxes). The deadlines
 * are columns, not timers: every `lifetimeSweepIntervalMs` one indexed query reads the rows due by
 * `deps.now()`. A row whose rule does not fire after all (its sandbox had activity the row did not
 * know of) gets its next due time in one transaction with the others, each write conditional on
 * the row not having moved meanwhile. A row whose rule fires is settled under its sandbox's lock
 * from the row as it is then — skipped when another move holds the lock (the row stays due, the
 * next sweep takes it); its pause or delete goes through the forward gate as the API's own do, so
 * nothing is stopped with a message in flight. Runs on the duties' holder (one replica), started
 * and stopped with the other duties; a replica that takes over reads the same columns, so a
 * restart or failover loses no deadline.
 */
export class LifetimeSweeper {
  private timer: NodeJS.Timeout | null = null;
  private sweeping: Promise<number> | null = null;

  constructor(
    private readonly deps: StopSandboxDeps &
      Pick<CoreDeps, "locks" | "repos"> & {
        config: Pick<CoreConfig, "lifetimeSweepIntervalMs">;
      },
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.sweep(), this.deps.config.lifetimeSweepIntervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.sweeping;
  }

  /** One sweep at `deps.now()`; resolves with the number of rows that were due. Never rejects. */
  sweep(): Promise<number> {
    this.sweeping ??= this.sweepOnce().finally(() => {
      this.sweeping = null;
    });
    return this.sweeping;
  }

  private async sweepOnce(): Promise<number> {
    const { deps } = this;
    try {
      const now = deps.now();
      const due = await deps.repos.sandboxes.listLifetimeDue(now, SWEEP_BATCH);
      const later: [SandboxRow, Later][] = [];
      for (const row of due) {
        const step = lifetimeStep(row, now, this.activityOf(row, false));
        if (step.kind === "later") later.push([row, step]);
        else await this.settleLocked(row.id);
      }
      if (later.length > 0) {
        await deps.transaction(async (tx) => {
          for (const [row, step] of later) {
            await tx.sandboxes.rescheduleLifetime(row.id, row, {
              lifetimeDueAt: step.dueAt,
              lastActivityAt: step.lastActivityAt,
            });
          }
        });
      }
      return due.length;
    } catch (error) {
      deps.log.error({ reason: errorMessage(error) }, "lifetime sweep failed");
      return 0;
    }
  }

  private activityOf(row: SandboxRow, agentRunning: boolean) {
    return { lastActivity: this.deps.activity.get(row.id) ?? null, agentRunning };
  }

  private async settleLocked(id: string): Promise<void> {
    const { deps } = this;
    await deps.locks
      .tryRun(id, () => this.settle(id))
      .catch((error: unknown) => {
        deps.log.warn({ sandboxId: id, reason: errorMessage(error) }, "lifetime rule not applied");
      });
  }

  /** Under the sandbox's lock: the row as it is now decides. */
  private async settle(id: string): Promise<void> {
    const { deps } = this;
    const row = await deps.repos.sandboxes.get(id);
    const now = deps.now();
    if (!row || row.lifetimeDueAt === null || row.lifetimeDueAt > now) return;
    let step = lifetimeStep(row, now, this.activityOf(row, false));
    // Idle by every other sign: a running agent is activity still.
    if (step.kind === "pause" && step.rule === "idle" && (await agentRunning(deps, row))) {
      step = lifetimeStep(row, now, this.activityOf(row, true));
    }
    if (step.kind === "later") {
      await deps.repos.sandboxes.rescheduleLifetime(id, row, {
        lifetimeDueAt: step.dueAt,
        lastActivityAt: step.lastActivityAt,
      });
      return;
    }
    deps.log.info({ sandboxId: id, detail: step.detail }, "lifetime rule fired");
    try {
      if (step.kind === "pause") await pauseRunning(deps, id, step.detail);
      else await stopAndRemove(deps, row, step.detail);
    } catch (error) {
      // Still due, but not looked at again every sweep while the cause lasts.
      await deps.repos.sandboxes
        .update(id, { lifetimeDueAt: now + RETRY_MS })
        .catch(() => undefined);
      throw error;
    }
  }
}

/** Whether an agent of the sandbox is at work (execution_status running): that is activity. */
async function agentRunning(deps: Pick<CoreDeps, "repos">, row: SandboxRow): Promise<boolean> {
  const conversations = await deps.repos.conversations.listBySandbox(row.id);
  return conversations.some((c) => !c.archived && c.executionStatus === "running");
}

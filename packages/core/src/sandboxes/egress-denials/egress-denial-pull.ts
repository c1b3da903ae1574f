import { errorMessage } from "@sandbox-server/runtime/error-message";
import type { Logger } from "../../logger";

/** How often the refusals of active sandboxes are read. */
export const EGRESS_PULL_INTERVAL_MS = 5_000;

/**
 * Reads the runtime's counted refusals (connections to addresses its enforcer refused: counted in
 * the sandbox's own table, read only when asked) for the sandboxes that had activity, so that
 * they reach `/metrics` and `sandbox.egress_denied` within an interval or two, without the
 * control plane reading every sandbox's table. A sandbox marked active is read at the next tick
 * and once more at the one after (what its command refused after the last event); a tick with
 * nothing to read arms no next one, so idle sandboxes cost nothing. Reads run one at a time (each
 * is a spawn): a burst of activity makes a tick longer, never a pile of processes.
 */
export class EgressDenialPuller {
  private dirty = new Set<string>();
  private trailing = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;

  constructor(
    private readonly read: (sandboxId: string) => Promise<void>,
    private readonly log: Logger,
    private readonly intervalMs = EGRESS_PULL_INTERVAL_MS,
  ) {}

  /** The sandbox had activity: read it at the next tick (and the one after). */
  active(sandboxId: string): void {
    if (this.stopped) return;
    this.dirty.add(sandboxId);
    this.arm();
  }

  /** The sandbox is gone (its last refusals were read by the delete itself). */
  forget(sandboxId: string): void {
    this.dirty.delete(sandboxId);
    this.trailing.delete(sandboxId);
  }

  /** Stops the timer; waits for a tick under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  private arm(): void {
    if (this.timer !== null || this.running !== null || this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.running = this.tick().finally(() => {
        this.running = null;
        if (this.dirty.size > 0 || this.trailing.size > 0) this.arm();
      });
    }, this.intervalMs);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    const due = new Set([...this.dirty, ...this.trailing]);
    this.trailing = this.dirty;
    this.dirty = new Set();
    for (const sandboxId of due) {
      if (this.stopped) return;
      await this.read(sandboxId).catch((error: unknown) =>
        this.log.debug({ sandboxId, reason: errorMessage(error) }, "egress refusals not read"),
      );
    }
  }
}

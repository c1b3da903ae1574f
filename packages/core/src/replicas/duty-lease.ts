import type { LeaseRepository } from "@sandbox-server/db";
import { errorMessage } from "@sandbox-server/runtime/error-message";
import type { Logger } from "../logger";

/** The lease whose holder runs the background duties (followers, webhooks, supervisor, pool). */
export const DUTIES_LEASE = "duties";
/** Each live replica renews `replica:<id>`: who else is there. */
export const REPLICA_LEASE_PREFIX = "replica:";

export interface DutyLeaseOptions {
  leases: LeaseRepository;
  /** This replica's id: the holder of what it takes. */
  holder: string;
  ttlMs: number;
  renewMs: number;
  log: Logger;
  /** Starts the duties; called when the lease is won. */
  gain: () => Promise<void>;
  /** Stops them; called when the lease is lost (or given up on stop). */
  lose: () => Promise<void>;
}

/**
 * Holds the `duties` lease for this replica when it can: every `renewMs` it tries to take or
 * renew it (and its own `replica:<id>` heartbeat). Winning starts the duties, losing stops them.
 * The renewals never wait for a start or stop (a reconcile can take longer than the TTL); those
 * run one after another, always towards the latest state. When the database cannot be reached
 * the duties stop before the lease could have expired (`ttlMs - renewMs` after the last renewal),
 * so two replicas never run them at once for longer than one renewal interval.
 */
export class DutyLease {
  private timer: NodeJS.Timeout | null = null;
  /** Whether the lease is ours, as far as the last renewal knows. */
  private held = false;
  /** What the duties are now: started or not. */
  private running = false;
  private transitions: Promise<void> = Promise.resolve();
  private lastRenewedAt = 0;
  private beating: Promise<void> | null = null;
  private stopped = false;

  constructor(private readonly options: DutyLeaseOptions) {}

  /** Tries at once, then on every interval. Resolves after the first try (and its start). */
  async start(): Promise<void> {
    this.stopped = false;
    this.timer = setInterval(() => void this.beat(), this.options.renewMs);
    this.timer.unref();
    await this.beat();
    await this.transitions;
  }

  /** Stops the duties and gives the lease up, so another replica takes it at once. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.beating;
    this.held = false;
    this.settle();
    await this.transitions;
    const { leases, holder } = this.options;
    await leases.release(DUTIES_LEASE, holder).catch(() => undefined);
    await leases.release(`${REPLICA_LEASE_PREFIX}${holder}`, holder).catch(() => undefined);
  }

  /** Whether this replica runs the duties right now. */
  get leading(): boolean {
    return this.running;
  }

  private beat(): Promise<void> {
    this.beating ??= this.renew().finally(() => {
      this.beating = null;
    });
    return this.beating;
  }

  private async renew(): Promise<void> {
    const { leases, holder, ttlMs, renewMs, log } = this.options;
    const startedAt = Date.now();
    try {
      await leases.acquire(`${REPLICA_LEASE_PREFIX}${holder}`, holder, ttlMs);
      const won = await leases.acquire(DUTIES_LEASE, holder, ttlMs);
      if (this.stopped) return;
      if (won) this.lastRenewedAt = startedAt;
      if (won !== this.held)
        log.info({ replica: holder }, won ? "duties lease won" : "duties lease lost");
      this.held = won;
    } catch (error) {
      if (this.stopped || !this.held) return;
      // Unknown whether it still is ours; past this point another replica may have it.
      if (Date.now() - this.lastRenewedAt < ttlMs - renewMs) return;
      log.warn(
        { replica: holder, reason: errorMessage(error) },
        "duties lease not renewed: stopping the duties",
      );
      this.held = false;
    }
    this.settle();
  }

  /**
   * Starts or stops the duties to match `held`, one move at a time. A start that fails is undone
   * and tried again after the next renewal.
   */
  private settle(): void {
    this.transitions = this.transitions.then(async () => {
      if (this.running === this.held) return;
      const starting = this.held;
      try {
        if (starting) await this.options.gain();
        else await this.options.lose();
        this.running = starting;
      } catch (error) {
        this.options.log.error(
          { replica: this.options.holder, reason: errorMessage(error) },
          starting ? "starting the duties failed" : "stopping the duties failed",
        );
        if (starting) await this.options.lose().catch(() => undefined);
        else this.running = false;
      }
    });
  }
}

import { setTimeout as sleep } from "node:timers/promises";
import type { LeaseRepository } from "@sandbox-server/db";
import { KeyedLock } from "@sandbox-server/runtime";

export interface SandboxLocksOptions {
  /** Set over a shared store: the lock is also a lease (`sandbox:<id>`), held across replicas. */
  shared?: {
    leases: LeaseRepository;
    /** This replica's id (the lease holder). */
    holder: string;
    ttlMs: number;
    renewMs: number;
  };
}

/** How long a waiter sleeps between tries of a lease another replica holds (first, then at most). */
const RETRY_FIRST_MS = 20;
const RETRY_MAX_MS = 250;

/**
 * The per-sandbox lifecycle lock: pause, resume, delete, a start's launch, a warm-pool claim and
 * the supervisor's fixes of one sandbox run one after another. In one process that is a
 * `KeyedLock`; over a shared store it is also a lease row `sandbox:<id>` taken after the process's
 * own lock (so a replica asks the database once per move, not once per waiter), renewed while the
 * task runs and released after it. A replica that dies holding it frees it when the lease expires.
 */
export class SandboxLocks {
  private readonly local = new KeyedLock();
  /** Tasks of this process per key, queued or running. */
  private readonly pending = new Map<string, number>();

  constructor(private readonly options: SandboxLocksOptions = {}) {}

  /** Runs `task` holding the sandbox's lock; waits for it as long as others hold it. */
  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    this.pending.set(key, (this.pending.get(key) ?? 0) + 1);
    return this.local
      .run(key, async () => {
        const shared = this.options.shared;
        if (!shared) return task();
        await this.acquire(key, true);
        return this.holding(key, task);
      })
      .finally(() => this.done(key));
  }

  /**
   * Runs `task` only if nobody holds the lock right now (this process or, over a shared store,
   * another replica); false when it was held. For the supervisor, which comes back later.
   */
  async tryRun(key: string, task: () => Promise<void>): Promise<boolean> {
    if ((this.pending.get(key) ?? 0) > 0) return false;
    this.pending.set(key, 1);
    try {
      return await this.local.run(key, async () => {
        if (!this.options.shared) {
          await task();
          return true;
        }
        if (!(await this.acquire(key, false))) return false;
        await this.holding(key, task);
        return true;
      });
    } finally {
      this.done(key);
    }
  }

  private done(key: string): void {
    const left = (this.pending.get(key) ?? 1) - 1;
    if (left > 0) this.pending.set(key, left);
    else this.pending.delete(key);
  }

  private async acquire(key: string, wait: boolean): Promise<boolean> {
    const { leases, holder, ttlMs } = this.required();
    let delay = RETRY_FIRST_MS;
    for (;;) {
      if (await leases.acquire(leaseName(key), holder, ttlMs)) return true;
      if (!wait) return false;
      await sleep(delay);
      delay = Math.min(delay * 2, RETRY_MAX_MS);
    }
  }

  /** Runs `task` under the lease: renewed while it runs, released after it. */
  private async holding<T>(key: string, task: () => Promise<T>): Promise<T> {
    const { leases, holder, ttlMs, renewMs } = this.required();
    const renew = setInterval(() => {
      leases.acquire(leaseName(key), holder, ttlMs).catch(() => undefined);
    }, renewMs);
    renew.unref();
    try {
      return await task();
    } finally {
      clearInterval(renew);
      // Left to expire when the database is unreachable right now.
      await leases.release(leaseName(key), holder).catch(() => undefined);
    }
  }

  private required() {
    const shared = this.options.shared;
    if (!shared) throw new Error("not a shared lock");
    return shared;
  }
}

/** The lease that stands for a sandbox's lifecycle lock. */
export function leaseName(sandboxId: string): string {
  return `sandbox:${sandboxId}`;
}

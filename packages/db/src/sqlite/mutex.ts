interface Waiter {
  grant: () => void;
  timer: NodeJS.Timeout | undefined;
}

/**
 * A first-come, first-served async lock. Releasing hands the lock straight to the next waiter,
 * so nobody barges in between. A waiter may give up at a deadline.
 */
export class Mutex {
  private held = false;
  private readonly waiters: Waiter[] = [];

  get locked(): boolean {
    return this.held;
  }

  /**
   * Resolves once the caller holds the lock; rejects with `onTimeout()` if that has not happened
   * by `deadline` (a `performance.now()` time). Without a deadline it waits as long as it takes.
   */
  acquire(deadline?: number, onTimeout?: () => Error): Promise<void> {
    if (!this.held) {
      this.held = true;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = { grant: resolve, timer: undefined };
      if (deadline !== undefined) {
        waiter.timer = setTimeout(
          () => {
            const at = this.waiters.indexOf(waiter);
            if (at !== -1) this.waiters.splice(at, 1);
            reject(onTimeout ? onTimeout() : new Error("Timed out waiting for a lock"));
          },
          Math.max(0, deadline - performance.now()),
        );
      }
      this.waiters.push(waiter);
    });
  }

  release(): void {
    const next = this.waiters.shift();
    if (!next) {
      this.held = false;
      return;
    }
    if (next.timer) clearTimeout(next.timer);
    next.grant();
  }
}

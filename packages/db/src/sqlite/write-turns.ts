/** Int32 slots of the shared buffer. */
const WANTING = 0;
const RELEASES = 1;
const LAST = 2;
const NEXT_ID = 3;
const HOLDER = 4;
const SLOTS = 5;

/** `Atomics.waitAsync` (Node 16+; in TypeScript's ES2024 library, past this project's ES2023). */
type WaitAsync = (
  array: Int32Array,
  index: number,
  value: number,
  timeoutMs: number,
) =>
  | { async: false; value: "not-equal" | "timed-out" }
  | { async: true; value: Promise<"ok" | "timed-out"> };
const waitAsync = (Atomics as unknown as { waitAsync: WaitAsync }).waitAsync;

/** Longest a store lets another have the next turn before it goes ahead anyway. */
const YIELD_MS = 5;
/** Longest a store waits for another's turn to end before it tries the lock (SQLite decides). */
const HOLD_WAIT_MS = 20;

/**
 * Turns at a SQLite file's write lock for the stores of one process (the main thread's and the
 * ingest worker's, each with its own connection), over a `SharedArrayBuffer` both are given.
 * SQLite's lock is not fair: a connection that commits and begins again at once keeps it, while
 * the other retries on timers and, with transactions back to back, seldom finds it free — the
 * delivery worker's claims and outcomes then waited seconds behind the ingest worker's batches.
 * Here a store counts itself as wanting the lock from before its first try until its write or
 * transaction ends; one that had the last turn, when another wants the lock, waits (at most
 * YIELD_MS) for that one's turn to end before it begins; a store waits for a turn under way to
 * end before it tries the lock at all (a try on a locked file spins in SQLite's busy handler,
 * blocking its thread); and a store that found the file locked waits for the holder's release
 * instead of a fixed pause. SQLite's lock still decides who
 * writes: these are only hints, so a thread that dies wanting costs the other one yield (a yield
 * nobody took is not repeated until another store had a turn), never a write.
 */
export class WriteTurns {
  private readonly slots: Int32Array;
  private readonly id: number;
  /** Set when a yield found nobody taking the turn; cleared once another store had one. */
  private unanswered = false;

  constructor(buffer: SharedArrayBuffer) {
    this.slots = new Int32Array(buffer, 0, SLOTS);
    this.id = Atomics.add(this.slots, NEXT_ID, 1) + 1;
  }

  /** A buffer for the stores of one file: given to each of them (`SqliteStoreOptions.writeTurns`). */
  static buffer(): SharedArrayBuffer {
    return new SharedArrayBuffer(SLOTS * Int32Array.BYTES_PER_ELEMENT);
  }

  /** Counts this store as wanting the lock, and lets another that wants it go first. */
  async want(): Promise<void> {
    Atomics.add(this.slots, WANTING, 1);
    const last = Atomics.load(this.slots, LAST);
    if (last !== this.id) this.unanswered = false;
    if (!this.unanswered && last === this.id && Atomics.load(this.slots, WANTING) >= 2) {
      const releases = Atomics.load(this.slots, RELEASES);
      if (!(await this.untilRelease(releases, YIELD_MS))) this.unanswered = true;
    }
    for (;;) {
      const releases = Atomics.load(this.slots, RELEASES);
      const holder = Atomics.load(this.slots, HOLDER);
      if (holder === 0 || holder === this.id) break;
      if (!(await this.untilRelease(releases, HOLD_WAIT_MS))) {
        // Held that long, or marked by a thread that is gone: try, and let SQLite answer.
        Atomics.compareExchange(this.slots, HOLDER, holder, 0);
        break;
      }
    }
    Atomics.store(this.slots, HOLDER, this.id);
  }

  /** The number of releases so far: what `untilRelease` waits to see change. */
  releases(): number {
    return Atomics.load(this.slots, RELEASES);
  }

  /**
   * Resolves true once a store released the lock after `seen` releases (at once if one did
   * already), false after `ms` without one.
   */
  untilRelease(seen: number, ms: number): Promise<boolean> {
    const wait = waitAsync(this.slots, RELEASES, seen, ms);
    if (!wait.async) return Promise.resolve(wait.value === "not-equal");
    // A pending waitAsync does not keep the process alive; the timer does, for the bound.
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), ms + 1);
      void wait.value.then((outcome) => {
        clearTimeout(timer);
        resolve(outcome === "ok");
      });
    });
  }

  /** This store's write or transaction ended (or gave up): the next turn may begin. */
  done(): void {
    Atomics.compareExchange(this.slots, HOLDER, this.id, 0);
    Atomics.store(this.slots, LAST, this.id);
    Atomics.sub(this.slots, WANTING, 1);
    Atomics.add(this.slots, RELEASES, 1);
    Atomics.notify(this.slots, RELEASES);
  }
}

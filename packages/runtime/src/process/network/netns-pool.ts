import { createHash, randomBytes } from "node:crypto";
import { errorMessage } from "../../error-message";
import type { RuntimeLogger } from "../../types";
import type { UsableNetns } from "./detect-netns";
import { createNetns, removeNetns } from "./sandbox-network";

/** Namespaces kept ready: enough for a burst of creates while the next ones are made. */
const POOL_SIZE = 2;
/**
 * A take refills after this long, not at once: a spawn forks the control plane, and the start
 * that took the namespace needs the CPU now. (A one-shot timer per take; none while idle.)
 */
const REFILL_DELAY_MS = 500;

/** The start of the names of the pool's namespaces for sandboxes under `rootDir`. */
export function poolPrefixOf(rootDir: string): string {
  return `ssn-p${createHash("sha256").update(rootDir).digest("hex").slice(0, 10)}`;
}

/**
 * Network namespaces made ahead of need (loopback up, no ruleset, no way out: nothing runs in
 * them), so that a sandbox's create does not wait for `ip netns add`. Refilled one at a time,
 * shortly after a take. Named `ssn-p<hash of the root directory>-<random>`; the
 * name a sandbox gets is recorded in its `sandbox.json`. `close` removes the ones not handed out;
 * those of a control plane killed first are removed by its successor's start
 * (`removePoolLeftovers`).
 */
export class NetnsPool {
  private readonly ready: string[] = [];
  private readonly prefix: string;
  private filling: Promise<void> | null = null;
  private refill: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(
    private readonly tools: UsableNetns,
    rootDir: string,
    private readonly logger: RuntimeLogger,
  ) {
    this.prefix = poolPrefixOf(rootDir);
  }

  /** A ready namespace's name, or null (the caller makes one); a refill follows. */
  take(): string | null {
    const name = this.ready.shift() ?? null;
    if (this.refill === null && !this.closed) {
      this.refill = setTimeout(() => {
        this.refill = null;
        this.fill();
      }, REFILL_DELAY_MS);
      this.refill.unref();
    }
    return name;
  }

  /** Makes namespaces until POOL_SIZE are ready (one at a time, in the background). */
  fill(): void {
    if (this.filling || this.closed) return;
    this.filling = (async () => {
      while (!this.closed && this.ready.length < POOL_SIZE) {
        const name = `${this.prefix}-${randomBytes(4).toString("hex")}`;
        try {
          await createNetns(this.tools, name);
        } catch (error) {
          this.logger.warn({ reason: errorMessage(error) }, "network namespace pool not filled");
          return;
        }
        if (this.closed) await removeNetns(this.tools, name).catch(() => undefined);
        else this.ready.push(name);
      }
    })().finally(() => {
      this.filling = null;
    });
  }

  /** Removes the namespaces not handed out. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.refill) clearTimeout(this.refill);
    this.refill = null;
    await this.filling;
    const left = this.ready.splice(0);
    await Promise.all(left.map((name) => removeNetns(this.tools, name).catch(() => undefined)));
  }
}

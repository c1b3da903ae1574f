import { createHash, randomBytes } from "node:crypto";
import { errorMessage } from "../../error-message";
import type { RuntimeLogger } from "../../types";
import type { UsableNetns } from "./detect-netns";
import { removeNetns } from "./sandbox-network";

/** A namespace made ahead, with its address on a veth pair (null: none, pasta attaches later). */
export interface PooledNetns {
  name: string;
  address: string | null;
}

/** Makes one namespace ready (its loopback up; its veth pair, if any); says its address. */
export type MakeNetns = (name: string) => Promise<string | null>;

/**
 * Namespaces kept ready: enough for a burst of creates, and for the creates of one refill delay
 * when they come one after another (a few a second), so that none waits for its own.
 */
export const POOL_SIZE = 4;
/**
 * A take refills after this long, not at once: a spawn forks the control plane, and the start
 * that took the namespace needs the CPU now. (A one-shot timer per take; none while idle.) A take
 * that empties the pool refills at once: the next create would otherwise make its namespace
 * itself, which costs it more than sharing the machine with the refill.
 */
const REFILL_DELAY_MS = 500;

/** The start of the names of the pool's namespaces for sandboxes under `rootDir`. */
export function poolPrefixOf(rootDir: string): string {
  return `ssn-p${createHash("sha256").update(rootDir).digest("hex").slice(0, 10)}`;
}

/**
 * Network namespaces made ahead of need (loopback up; no way out, or a veth pair behind a table
 * that lets nothing out: nothing runs in them), so that a sandbox's create does not wait for `ip netns add`. Refilled one at a time,
 * shortly after a take. Named `ssn-p<hash of the root directory>-<random>`; the
 * name a sandbox gets is recorded in its `sandbox.json`. `close` removes the ones not handed out;
 * those of a control plane killed first are removed by its successor's start
 * (`removePoolLeftovers`).
 */
export class NetnsPool {
  private readonly ready: PooledNetns[] = [];
  private readonly prefix: string;
  private filling: Promise<void> | null = null;
  private refill: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(
    private readonly tools: UsableNetns,
    rootDir: string,
    private readonly logger: RuntimeLogger,
    private readonly make: MakeNetns,
    /** Before each round of making (the host's rules for veth pairs, mended if need be). */
    private readonly beforeFill: () => Promise<void> = async () => undefined,
  ) {
    this.prefix = poolPrefixOf(rootDir);
  }

  /** A ready namespace, or null (the caller makes one); a refill follows (at once when empty). */
  take(): PooledNetns | null {
    const name = this.ready.shift() ?? null;
    if (this.ready.length === 0) {
      if (this.refill) clearTimeout(this.refill);
      this.refill = null;
      this.fill();
    } else if (this.refill === null && !this.closed) {
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
      try {
        await this.beforeFill();
      } catch (error) {
        this.logger.warn(
          { reason: errorMessage(error) },
          "host rules for sandbox networks not set",
        );
        return;
      }
      while (!this.closed && this.ready.length < POOL_SIZE) {
        const name = `${this.prefix}-${randomBytes(4).toString("hex")}`;
        let address: string | null;
        try {
          address = await this.make(name);
        } catch (error) {
          this.logger.warn({ reason: errorMessage(error) }, "network namespace pool not filled");
          await removeNetns(this.tools, name).catch(() => undefined);
          return;
        }
        if (this.closed) await removeNetns(this.tools, name).catch(() => undefined);
        else this.ready.push({ name, address });
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
    await Promise.all(left.map(({ name }) => removeNetns(this.tools, name).catch(() => undefined)));
  }
}

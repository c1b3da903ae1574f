import type { Socket } from "node:net";
import type { CoreDeps } from "@sandbox-server/core";

/** How often open connections' traffic is turned into activity (the lifetime sweep reads it per second). */
const ACTIVITY_EVERY_MS = 1_000;

interface Proxied {
  sandboxId: string;
  client: Socket;
  /** The client's bytes both ways at the last sweep. */
  bytes: number;
}

/**
 * The open proxied connections, by sandbox, and their traffic as the sandbox's activity: one
 * timer reads every connection's byte counts once a second, so the data path has no per-chunk
 * work of ours (a piped chunk never reaches our code).
 */
export class ProxiedConnections {
  private readonly bySandbox = new Map<string, Set<Proxied>>();
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly deps: Pick<CoreDeps, "activity" | "now">) {}

  add(sandboxId: string, client: Socket): void {
    let set = this.bySandbox.get(sandboxId);
    if (!set) {
      set = new Set();
      this.bySandbox.set(sandboxId, set);
    }
    const entry: Proxied = { sandboxId, client, bytes: client.bytesRead + client.bytesWritten };
    set.add(entry);
    client.once("close", () => {
      set.delete(entry);
      if (set.size === 0 && this.bySandbox.get(sandboxId) === set) this.bySandbox.delete(sandboxId);
      if (this.bySandbox.size === 0) this.stopSweeping();
    });
    if (!this.timer) {
      this.timer = setInterval(() => this.sweep(), ACTIVITY_EVERY_MS);
      this.timer.unref();
    }
  }

  end(sandboxId: string): void {
    for (const { client } of this.bySandbox.get(sandboxId) ?? []) client.destroy();
  }

  endAll(): void {
    for (const id of [...this.bySandbox.keys()]) this.end(id);
    this.stopSweeping();
  }

  private sweep(): void {
    const now = this.deps.now();
    for (const [sandboxId, set] of this.bySandbox) {
      let active = false;
      for (const entry of set) {
        const bytes = entry.client.bytesRead + entry.client.bytesWritten;
        if (bytes !== entry.bytes) active = true;
        entry.bytes = bytes;
      }
      if (active) this.deps.activity.set(sandboxId, now);
    }
  }

  private stopSweeping(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}

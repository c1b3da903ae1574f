import { once } from "node:events";
import { setTimeout as sleep } from "node:timers/promises";
import type { Worker } from "node:worker_threads";
import { errorMessage } from "@sandbox-server/runtime/error-message";
import { type FollowerHost, type FollowHandle, InProcessFollowers } from "./in-process";
import type { IngestDeps } from "./ingest-deps";
import type { FromWorker, StoredNotice, ToWorker } from "./protocol";

/** How long the worker may take to open its store before the main thread follows instead. */
const START_TIMEOUT_MS = 30_000;
/** How long closing may take (store what is pending, close the store) before the thread is ended. */
const CLOSE_TIMEOUT_MS = 10_000;

interface Followed {
  /** This following's id on the worker (a conversation followed again gets a new one). */
  followId: number;
  conversationId: string;
  sandboxId: string;
  onEnd: () => void;
  /** Set once the worker is gone and this thread follows the conversation instead. */
  local: FollowHandle | null;
}

/**
 * Follows conversations and records their events on the ingest worker, a thread with its own store
 * connection (see ./serve.ts): the main thread, which serves requests, only names what to follow
 * and applies one short notice per stored burst. Should the worker fail to start, or die, this
 * thread follows every conversation itself (logged): events are never left unfollowed.
 *
 * The worker is started by the first conversation followed, not with the control plane: a thread
 * with its own V8 heap, bundle and store connection costs about 30 MiB, which a control plane with
 * nothing to follow need not carry. What is named while it starts is sent to it once it is ready.
 */
export class WorkerFollowers implements FollowerHost {
  private worker: Worker | null = null;
  /** Resolves once the worker being started is ready (or failed); null when none starts. */
  private starting: Promise<void> | null = null;
  private fallback: InProcessFollowers | null = null;
  /** By follow id: an `ended` about an earlier following of a conversation never ends a later one. */
  private readonly followed = new Map<number, Followed>();
  private nextFollow = 0;
  private closing = false;

  constructor(
    private readonly deps: IngestDeps,
    private readonly spawn: () => Worker,
  ) {}

  /** "worker" while the worker runs, starts, or is yet to be started; "main" once it failed. */
  get where(): "main" | "worker" {
    return this.fallback ? "main" : "worker";
  }

  /** Starts the worker, unless it runs or starts already, or this thread follows instead. */
  private startWorker(): void {
    if (this.worker || this.starting || this.fallback || this.closing) return;
    let worker: Worker;
    try {
      worker = this.spawn();
    } catch (error) {
      this.fallBack(`the ingest worker did not start: ${errorMessage(error)}`);
      return;
    }
    this.starting = this.awaitReady(worker).finally(() => {
      this.starting = null;
    });
  }

  /** Waits until the worker's store is open; else ends it and follows on this thread. */
  private async awaitReady(worker: Worker): Promise<void> {
    const started = new Promise<string | null>((resolve) => {
      worker.on("message", (message: FromWorker) => {
        if (message.type === "ready") resolve(null);
        else if (message.type === "failed") resolve(message.reason);
        else this.onMessage(message);
      });
      worker.once("error", (error) => resolve(errorMessage(error)));
      worker.once("exit", (code) => resolve(`exited with code ${code}`));
    });
    const failure = await Promise.race([
      started,
      sleep(START_TIMEOUT_MS, "did not open its store in time", { ref: false }),
    ]);
    if (failure !== null) {
      void worker.terminate();
      this.fallBack(`the ingest worker did not start: ${failure}`);
      return;
    }
    this.worker = worker;
    this.deps.log.info({}, "events are followed and stored on the ingest worker's thread");
    for (const { followId, conversationId, sandboxId, local } of this.followed.values()) {
      if (!local) this.post({ type: "follow", followId, conversationId, sandboxId });
    }
    worker.once("exit", (code) => {
      if (this.worker !== worker) return;
      this.worker = null;
      if (!this.closing) this.fallBack(`the ingest worker exited (code ${code})`);
    });
    worker.on("error", (error) => {
      this.deps.log.error({ reason: errorMessage(error) }, "the ingest worker failed");
    });
  }

  follow(conversationId: string, sandboxId: string, onEnd: () => void): FollowHandle {
    const followId = this.nextFollow++;
    const entry: Followed = { followId, conversationId, sandboxId, onEnd, local: null };
    this.followed.set(followId, entry);
    if (this.fallback) entry.local = this.followHere(entry);
    else if (this.worker) this.post({ type: "follow", followId, conversationId, sandboxId });
    else this.startWorker();
    return {
      sandboxId,
      stop: () => {
        if (!this.followed.delete(followId)) return;
        if (entry.local) entry.local.stop();
        else this.post({ type: "unfollow", followId });
      },
    };
  }

  async close(): Promise<void> {
    this.closing = true;
    await this.starting;
    const worker = this.worker;
    if (worker) {
      const exited = once(worker, "exit");
      this.post({ type: "close" });
      const ended = await Promise.race([
        exited.then(() => true),
        sleep(CLOSE_TIMEOUT_MS, false, { ref: false }),
      ]);
      if (!ended) {
        this.deps.log.warn({}, "the ingest worker did not close in time; ending it");
        await worker.terminate();
      }
      this.worker = null;
    }
    await this.fallback?.close();
  }

  private post(message: ToWorker): void {
    this.worker?.postMessage(message);
  }

  private onMessage(message: FromWorker): void {
    switch (message.type) {
      case "stored":
        this.apply(message.notice);
        return;
      case "ended": {
        const entry = this.followed.get(message.followId);
        if (!entry || entry.local) return;
        this.followed.delete(message.followId);
        entry.onEnd();
        return;
      }
      case "log":
        this.deps.log[message.level](message.fields, message.message);
        return;
      default:
        return;
    }
  }

  /** What the worker's stored burst changed, applied as recording on this thread would have. */
  private apply(notice: StoredNotice): void {
    const { deps } = this;
    for (const [sandboxId, at] of notice.activity) deps.activity.set(sandboxId, at);
    for (const lag of notice.lags) deps.metrics?.eventStored(lag);
    for (const id of new Set(notice.conversations)) deps.events.emit("conversation.activity", id);
    if (notice.webhooksQueued) deps.events.emit("webhooks.queued");
  }

  /** From now on this thread follows: every conversation the worker followed, and new ones. */
  private fallBack(reason: string): void {
    this.deps.log.error({ reason }, "following events on the main thread instead");
    this.fallback ??= new InProcessFollowers(this.deps);
    for (const entry of this.followed.values()) entry.local ??= this.followHere(entry);
  }

  private followHere(entry: Followed): FollowHandle {
    const fallback = this.fallback as InProcessFollowers;
    return fallback.follow(entry.conversationId, entry.sandboxId, () => {
      if (this.followed.delete(entry.followId)) entry.onEnd();
    });
  }
}

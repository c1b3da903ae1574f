import type { ConversationRow, SandboxRow } from "@sandbox-server/db";
import { errorMessage } from "@sandbox-server/runtime/error-message";
import type { SandboxStatusChange } from "../../core-events";
import type { CoreConfig, CoreDeps } from "../../deps";
import { listenForFollowChanges } from "./follow-notices";
import { type FollowerHost, type FollowHandle, InProcessFollowers } from "./in-process";
import type { IngestConfig, IngestDeps } from "./ingest-deps";

/** The ingest's collaborators, and what deciding whom to follow reads besides. */
export type EventFollowerDeps = IngestDeps &
  Pick<CoreDeps, "runtime" | "sharedStore" | "notices" | "replicaId"> & {
    config: IngestConfig & Pick<CoreConfig, "followerScanIntervalMs">;
  };

/**
 * Follows every conversation of every RUNNING sandbox: from the start of the core, from a
 * conversation's creation, and from a sandbox's return to RUNNING; stops on any other status and
 * on deletion. The control plane dials out to the agent servers' loopback ports; nothing in a
 * sandbox ever needs to reach the control plane.
 *
 * Over a shared store other replicas create conversations and move sandboxes without this
 * process hearing of it in memory: they name each sandbox they moved in a store notice, and this
 * follower looks at that sandbox alone (./follow-notices), so idle sandboxes cost nothing however
 * many there are. Notices are best effort, so it also scans the store every
 * `followerScanIntervalMs`, and at once when notices may have been missed: follows what is
 * RUNNING and not yet followed, stops what is no longer RUNNING. Restartable (`stop()`, then
 * `start()`): it runs while this replica holds the duties.
 *
 * Which conversations to follow is decided here, on the main thread; following them and storing
 * their events happens in the host `makeHost` gives each start: this thread's, or the ingest
 * worker's (a thread of its own, see ./ingest).
 */
export class EventFollower {
  private readonly followers = new Map<string, FollowHandle>();
  private host: FollowerHost | null = null;
  private unsubscribe: (() => void) | null = null;
  private scanTimer: NodeJS.Timeout | null = null;
  private scanning = false;
  private stopNotices: (() => Promise<void>) | null = null;

  constructor(
    private readonly deps: EventFollowerDeps,
    private readonly makeHost: () => FollowerHost = () => new InProcessFollowers(deps),
  ) {}

  /** Where events are followed and stored now: "worker" on the ingest worker's thread. */
  get where(): "main" | "worker" | null {
    return this.host?.where ?? null;
  }

  async start(): Promise<void> {
    const host = this.makeHost();
    this.host = host;
    await host.start?.();
    // Stopped while the host started.
    if (this.host !== host) return;
    const { events } = this.deps;
    const onStatus = ({ sandbox }: SandboxStatusChange) =>
      this.guard(sandbox.id, async () => {
        if (sandbox.status === "RUNNING") await this.followSandbox(sandbox);
        else this.unfollowSandbox(sandbox.id);
      });
    const onDeleted = (sandbox: SandboxRow) =>
      this.guard(sandbox.id, async () => this.unfollowSandbox(sandbox.id));
    const onCreated = (conversation: ConversationRow) =>
      this.guard(conversation.sandboxId, async () => {
        const sandbox = await this.deps.repos.sandboxes.get(conversation.sandboxId);
        if (sandbox?.status === "RUNNING") this.follow(conversation);
      });
    const onConversationDeleted = (conversation: ConversationRow) => {
      this.followers.get(conversation.id)?.stop();
      this.followers.delete(conversation.id);
    };
    events.on("sandbox.status_changed", onStatus);
    events.on("sandbox.deleted", onDeleted);
    events.on("conversation.created", onCreated);
    events.on("conversation.deleted", onConversationDeleted);
    this.unsubscribe = () => {
      events.off("sandbox.status_changed", onStatus);
      events.off("sandbox.deleted", onDeleted);
      events.off("conversation.created", onCreated);
      events.off("conversation.deleted", onConversationDeleted);
    };
    const { notices } = this.deps;
    if (this.deps.sharedStore && notices) {
      // Listening before the first read: a move made meanwhile is seen twice, never missed.
      const stopNotices = await listenForFollowChanges(
        { notices, replicaId: this.deps.replicaId, log: this.deps.log },
        (sandboxId) => void this.guard(sandboxId, () => this.recheck(sandboxId)),
        () => void this.scan(),
      );
      if (this.active()) this.stopNotices = stopNotices;
      else await stopNotices?.();
    }
    for (const sandbox of await this.deps.repos.sandboxes.listByStatus(["RUNNING"])) {
      await this.guard(sandbox.id, () => this.followSandbox(sandbox));
    }
    // Stopped meanwhile (the lease moved on): no timer.
    if (this.deps.sharedStore && this.active()) {
      this.scanTimer = setInterval(() => void this.scan(), this.deps.config.followerScanIntervalMs);
      this.scanTimer.unref();
    }
  }

  /** Stops following; resolves once every event received so far is stored. */
  async stop(): Promise<void> {
    if (this.scanTimer) clearInterval(this.scanTimer);
    this.scanTimer = null;
    this.unsubscribe?.();
    this.unsubscribe = null;
    const stopNotices = this.stopNotices;
    this.stopNotices = null;
    await stopNotices?.();
    for (const follower of this.followers.values()) follower.stop();
    this.followers.clear();
    const host = this.host;
    this.host = null;
    await host?.close();
  }

  private active(): boolean {
    return this.unsubscribe !== null;
  }

  /** Whether the conversation's events are being followed right now. */
  isFollowing(conversationId: string): boolean {
    return this.followers.has(conversationId);
  }

  /** One look at the store for what other replicas changed. */
  private async scan(): Promise<void> {
    if (this.scanning || !this.unsubscribe) return;
    this.scanning = true;
    try {
      // Only followers that existed before the read are judged by it (a newer one is newer news).
      const before = new Map(this.followers);
      const running = await this.deps.repos.sandboxes.listByStatus(["RUNNING"]);
      if (!this.unsubscribe) return;
      const ids = new Set(running.map((sandbox) => sandbox.id));
      for (const [id, follower] of before) {
        if (ids.has(follower.sandboxId) || this.followers.get(id) !== follower) continue;
        follower.stop();
        this.followers.delete(id);
      }
      for (const sandbox of running) {
        if (!this.unsubscribe) return;
        await this.guard(sandbox.id, () => this.followSandbox(sandbox));
      }
    } catch (error) {
      this.deps.log.warn(
        { reason: errorMessage(error) },
        "scanning for sandboxes to follow failed",
      );
    } finally {
      this.scanning = false;
    }
  }

  /** Another replica moved the sandbox (or added a conversation to it): follow what it is now. */
  private async recheck(sandboxId: string): Promise<void> {
    if (!this.active()) return;
    const sandbox = await this.deps.repos.sandboxes.get(sandboxId);
    if (sandbox?.status === "RUNNING") await this.followSandbox(sandbox);
    else this.unfollowSandbox(sandboxId);
  }

  private async followSandbox(sandbox: SandboxRow): Promise<void> {
    // Records of another runtime are not supervised here; their agent servers are not ours to dial.
    if (sandbox.runtime !== this.deps.runtime.kind) return;
    const conversations = await this.deps.repos.conversations.listBySandbox(sandbox.id);
    // The sandbox may have left RUNNING (or the follower stopped) while the list was read.
    if (!this.unsubscribe) return;
    const current = await this.deps.repos.sandboxes.get(sandbox.id);
    if (current?.status !== "RUNNING" || !this.unsubscribe) return;
    for (const conversation of conversations) {
      if (!conversation.archived) this.follow(conversation);
    }
  }

  private unfollowSandbox(sandboxId: string): void {
    for (const [id, follower] of this.followers) {
      if (follower.sandboxId !== sandboxId) continue;
      follower.stop();
      this.followers.delete(id);
    }
  }

  private follow(conversation: ConversationRow): void {
    const { host } = this;
    if (!host || this.followers.has(conversation.id)) return;
    const follower = host.follow(conversation.id, conversation.sandboxId, () => {
      if (this.followers.get(conversation.id) === follower) this.followers.delete(conversation.id);
    });
    this.followers.set(conversation.id, follower);
  }

  /** Listeners run after the move that emitted: a failure here must not reach that move. */
  private async guard(sandboxId: string, work: () => Promise<void>): Promise<void> {
    try {
      await work();
    } catch (error) {
      this.deps.log.error({ sandboxId, reason: errorMessage(error) }, "event follower failed");
    }
  }
}

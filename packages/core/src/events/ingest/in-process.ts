import { ConversationFollower } from "./conversation-follower";
import { EventRecorder } from "./event-recorder";
import type { IngestDeps } from "./ingest-deps";

/** One followed conversation, wherever it is followed. */
export interface FollowHandle {
  readonly sandboxId: string;
  stop(): void;
}

/** Where the event follower's conversations are followed and their events recorded. */
export interface FollowerHost {
  /** Gets ready before the first `follow` (the ingest worker opens its store). */
  start?(): Promise<void>;
  /** Follows one conversation; `onEnd` is called once should it end by itself. */
  follow(conversationId: string, sandboxId: string, onEnd: () => void): FollowHandle;
  /** After every handle was stopped: stores what is pending and lets go of what it holds. */
  close(): Promise<void>;
  /** "worker" when events are followed and stored on the ingest worker's thread. */
  readonly where: "main" | "worker";
}

/** Follows on this thread, with the given deps (the core's, or the ingest worker's own). */
export class InProcessFollowers implements FollowerHost {
  readonly where = "main";

  /** One batch, one transaction, for all the conversations followed here. */
  private readonly recorder: EventRecorder;

  constructor(private readonly deps: IngestDeps) {
    this.recorder = new EventRecorder(deps);
  }

  follow(conversationId: string, sandboxId: string, onEnd: () => void): FollowHandle {
    const follower = new ConversationFollower(
      this.deps,
      this.recorder,
      conversationId,
      sandboxId,
      onEnd,
    );
    follower.start();
    return follower;
  }

  close(): Promise<void> {
    return this.recorder.flush();
  }
}

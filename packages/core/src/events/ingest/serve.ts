import type { MessagePort } from "node:worker_threads";
import type { Store } from "@sandbox-server/db";
import { errorMessage } from "@sandbox-server/runtime/error-message";
import { createEvents } from "../../core-events";
import type { Logger } from "../../logger";
import { type FollowHandle, InProcessFollowers } from "./in-process";
import type { IngestConfig, IngestDeps } from "./ingest-deps";
import type { FromWorker, LogLevel, StoredNotice, ToWorker } from "./protocol";

/**
 * The ingest worker's side: opens its own store connection with `openStore`, then follows the
 * conversations the main thread names and records their events there, off the main thread's loop.
 * What the main thread keeps in memory or listens for (activity, `conversation.activity`,
 * `webhooks.queued`, metrics, log lines) goes back as messages, one `stored` per burst. Resolves
 * once `close` was handled and the store closed.
 */
export async function runIngestWorker(
  port: MessagePort,
  openStore: () => Promise<Store>,
  config: IngestConfig,
): Promise<void> {
  const send = (message: FromWorker) => port.postMessage(message);
  let store: Store;
  try {
    store = await openStore();
  } catch (error) {
    send({ type: "failed", reason: errorMessage(error) });
    port.close();
    return;
  }
  const notices = new NoticeBuffer(send);
  const events = createEvents();
  events.on("conversation.activity", (id) => notices.conversation(id));
  events.on("webhooks.queued", () => notices.webhooksQueued());
  const deps: IngestDeps = {
    repos: store,
    transaction: (work) => store.transaction(work),
    config,
    log: forwardingLogger(send, {}),
    now: Date.now,
    events,
    activity: { set: (sandboxId, at) => notices.activity(sandboxId, at) },
    metrics: {
      eventStored: (lag) => notices.lag(lag),
      forward() {},
      webhookAttempt() {},
      egressDenied() {},
      sandboxDeleted() {},
    },
  };
  const host = new InProcessFollowers(deps);
  const followers = new Map<number, FollowHandle>();
  const closed = new Promise<void>((resolve) => {
    port.on("message", (message: ToWorker) => {
      switch (message.type) {
        case "follow": {
          const { followId, conversationId, sandboxId } = message;
          const handle = host.follow(conversationId, sandboxId, () => {
            if (followers.delete(followId)) send({ type: "ended", followId });
          });
          followers.set(followId, handle);
          return;
        }
        case "unfollow":
          followers.get(message.followId)?.stop();
          followers.delete(message.followId);
          return;
        case "close":
          for (const handle of followers.values()) handle.stop();
          followers.clear();
          void host
            .close()
            .then(() => notices.send())
            .then(() => store.close())
            .catch((error) =>
              send(
                logLine(
                  "error",
                  { reason: errorMessage(error) },
                  "closing the ingest worker's store failed",
                ),
              ),
            )
            .then(() => resolve());
      }
    });
  });
  send({ type: "ready" });
  await closed;
  port.close();
}

/** Gathers what storing events changed and sends it once per turn of the worker's loop. */
class NoticeBuffer {
  private pending: StoredNotice | null = null;

  constructor(private readonly post: (message: FromWorker) => void) {}

  private get notice(): StoredNotice {
    if (!this.pending) {
      this.pending = { activity: [], conversations: [], webhooksQueued: false, lags: [] };
      setImmediate(() => this.send());
    }
    return this.pending;
  }

  activity(sandboxId: string, at: number): void {
    this.notice.activity.push([sandboxId, at]);
  }

  conversation(id: string): void {
    this.notice.conversations.push(id);
  }

  webhooksQueued(): void {
    this.notice.webhooksQueued = true;
  }

  lag(seconds: number): void {
    this.notice.lags.push(seconds);
  }

  send(): void {
    const notice = this.pending;
    this.pending = null;
    if (notice) this.post({ type: "stored", notice });
  }
}

function logLine(level: LogLevel, fields: Record<string, unknown>, message: string): FromWorker {
  return { type: "log", level, fields, message };
}

/** A logger whose lines the main thread's logger writes (one format, one redaction). */
function forwardingLogger(
  send: (message: FromWorker) => void,
  bindings: Record<string, unknown>,
): Logger {
  const line = (level: LogLevel) => (fields: object, message?: string) => {
    try {
      send(logLine(level, { ...bindings, ...fields }, message ?? ""));
    } catch {
      // A field that cannot cross threads (a function): the line without its fields.
      send(logLine(level, { ...bindings }, message ?? ""));
    }
  };
  return {
    debug: line("debug"),
    info: line("info"),
    warn: line("warn"),
    error: line("error"),
    child: (more) => forwardingLogger(send, { ...bindings, ...more }),
  };
}

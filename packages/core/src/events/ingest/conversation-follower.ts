import type { ConversationEventRow, ConversationRow, SandboxRow } from "@sandbox-server/db";
import { errorMessage } from "@sandbox-server/runtime/error-message";
import WebSocket from "ws";
import { backoffDelay } from "../../shared/backoff";
import { timestampMicros } from "../../shared/timestamps";
import type { IncomingEvent } from "../contracts";
import { fullStatePatch } from "../service/conversation-metadata";
import type { EventRecorder } from "./event-recorder";
import type { IngestDeps } from "./ingest-deps";
import { parseIncomingEvent } from "./parse-incoming-event";

/** The agent server closes with this when the conversation does not exist (any more). */
const CLOSE_NOT_FOUND = 4004;
const HANDSHAKE_TIMEOUT_MS = 10_000;
/** Above the agent server's own frame cap (16 MiB), which sends bigger events as placeholders. */
const MAX_FRAME_BYTES = 25 * 1024 * 1024;
/** ws closes with this when a frame is over `maxPayload`. */
const CLOSE_TOO_BIG = 1009;

/**
 * Follows one conversation over its agent server's `/sockets/events/{id}` and records every event.
 * The first connection asks for every past event; each reconnection asks only for those after the
 * newest stored one (`resend_mode=since`), and storing dedupes by event id, so a reconnect neither
 * loses nor doubles an event. Reconnects back off exponentially while the sandbox stays RUNNING.
 */
export class ConversationFollower {
  private socket: WebSocket | null = null;
  private retry: NodeJS.Timeout | null = null;
  private failures = 0;
  private stopped = false;

  constructor(
    private readonly deps: IngestDeps,
    private readonly recorder: EventRecorder,
    readonly conversationId: string,
    readonly sandboxId: string,
    /** Called once when the follower ends by itself (conversation or sandbox gone). */
    private readonly onEnd: () => void,
  ) {}

  start(): void {
    void this.connect();
  }

  stop(): void {
    this.stopped = true;
    if (this.retry) clearTimeout(this.retry);
    this.retry = null;
    const socket = this.socket;
    this.socket = null;
    // terminate, not close: a paused agent server would never answer a closing handshake.
    socket?.terminate();
  }

  private end(reason: string): void {
    this.deps.log.debug({ conversationId: this.conversationId, reason }, "event follower ended");
    this.stop();
    this.onEnd();
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    const { deps } = this;
    let conversation: ConversationRow | undefined;
    let sandbox: SandboxRow | undefined;
    let latest: ConversationEventRow | undefined;
    try {
      [conversation, sandbox, latest] = await Promise.all([
        deps.repos.conversations.get(this.conversationId),
        deps.repos.sandboxes.get(this.sandboxId),
        deps.repos.conversationEvents.latest(this.conversationId),
      ]);
    } catch (error) {
      deps.log.warn(
        { conversationId: this.conversationId, reason: errorMessage(error) },
        "reading a followed conversation failed",
      );
      this.scheduleReconnect();
      return;
    }
    // Stopped while reading: a socket opened now would never be closed.
    if (this.stopped) return;
    if (!conversation || conversation.archived) {
      this.end("conversation archived");
      return;
    }
    if (sandbox?.status !== "RUNNING" || !sandbox.agentServerUrl) {
      this.end("sandbox not running");
      return;
    }
    const resend = latest
      ? `resend_mode=since&after_timestamp=${encodeURIComponent(latest.timestamp)}`
      : "resend_mode=all";
    const base = sandbox.agentServerUrl.replace(/^http/, "ws");
    const socket = new WebSocket(`${base}/sockets/events/${conversation.id}?${resend}`, {
      headers: { "X-Session-API-Key": sandbox.sessionApiKey },
      handshakeTimeout: HANDSHAKE_TIMEOUT_MS,
      maxPayload: MAX_FRAME_BYTES,
      perMessageDeflate: false,
    });
    this.socket = socket;
    socket.on("message", (data) => {
      if (this.socket === socket) this.onFrame(socket, conversation, data);
    });
    socket.on("error", (error) => {
      if (this.socket !== socket) return;
      deps.log.debug(
        { conversationId: conversation.id, reason: errorMessage(error) },
        "event socket error",
      );
    });
    socket.on("close", (code) => {
      if (this.socket !== socket) return;
      this.socket = null;
      if (code === CLOSE_TOO_BIG) {
        deps.log.warn(
          { conversationId: conversation.id, maxFrameBytes: MAX_FRAME_BYTES },
          "the agent server sent an event frame over the limit",
        );
      }
      if (code === CLOSE_NOT_FOUND) this.end("conversation unknown to its agent server");
      else this.scheduleReconnect();
    });
  }

  private scheduleReconnect(): void {
    if (this.stopped) return;
    this.failures += 1;
    const { followerReconnectBaseMs, followerReconnectMaxMs } = this.deps.config;
    const delay = backoffDelay(this.failures, followerReconnectBaseMs, followerReconnectMaxMs);
    this.retry = setTimeout(() => {
      this.retry = null;
      void this.connect();
    }, delay);
    this.retry.unref();
  }

  private onFrame(socket: WebSocket, conversation: ConversationRow, data: WebSocket.RawData): void {
    const bytes = frameBytes(data);
    const frame = parseFrame(bytes);
    const parsed = parseIncomingEvent(frame);
    if (!parsed.success) {
      const { kind, code } = (frame ?? {}) as { kind?: unknown; code?: unknown };
      const serverError = kind === "ServerErrorEvent" ? { code } : {};
      this.deps.log.warn(
        { conversationId: conversation.id, ...serverError },
        "ignoring a frame that is not an event",
      );
      return;
    }
    const event = withinStoredSize(parsed.data, bytes.length, this.deps.config.storedEventMaxBytes);
    try {
      if (event.kind === "ConversationStateUpdateEvent" && event.key === "full_state") {
        // Always the first frame: the connection works. Not part of the event log.
        this.failures = 0;
        void this.applyFullState(event.value);
        return;
      }
      const timestampUs = timestampMicros(event.timestamp);
      if (timestampUs === undefined) {
        this.deps.log.warn(
          { conversationId: conversation.id, eventId: event.id },
          "ignoring an event without a readable timestamp",
        );
        return;
      }
      this.recorder.record({
        conversation,
        event,
        timestampUs,
        onError: (error) => {
          // Not stored: reconnecting resends everything after the newest stored event.
          this.deps.log.error(
            { conversationId: conversation.id, eventId: event.id, reason: errorMessage(error) },
            "recording an event failed",
          );
          socket.terminate();
        },
      });
    } catch (error) {
      // Not stored: reconnecting resends everything after the newest stored event.
      this.deps.log.error(
        { conversationId: conversation.id, eventId: event.id, reason: errorMessage(error) },
        "recording an event failed",
      );
      socket.terminate();
    }
  }

  private async applyFullState(value: unknown): Promise<void> {
    try {
      const row = await this.deps.repos.conversations.get(this.conversationId);
      const patch = row ? fullStatePatch(row, value) : null;
      if (patch) await this.deps.repos.conversations.update(this.conversationId, patch);
    } catch (error) {
      // Only metadata: the next state update or event sets it again.
      this.deps.log.warn(
        { conversationId: this.conversationId, reason: errorMessage(error) },
        "updating a conversation from its state failed",
      );
    }
  }
}

function frameBytes(data: WebSocket.RawData): Buffer {
  if (Array.isArray(data)) return Buffer.concat(data);
  // ws hands out Buffers by default: no copy of those.
  return Buffer.isBuffer(data) ? data : Buffer.from(data);
}

function parseFrame(bytes: Buffer): unknown {
  try {
    return JSON.parse(bytes.toString("utf8"));
  } catch {
    return undefined;
  }
}

/**
 * The event as stored: itself, or — over `maxBytes` — a placeholder with its identity that says
 * it was cut, so one huge event neither bloats the store and every webhook nor stops the follower.
 */
export function withinStoredSize(
  event: IncomingEvent,
  size: number,
  maxBytes: number,
): IncomingEvent {
  if (size <= maxBytes) return event;
  return {
    id: event.id,
    timestamp: event.timestamp,
    kind: event.kind,
    source: event.source,
    truncated: true,
    original_size_bytes: size,
    detail: `The event is larger than ${maxBytes} bytes and was not stored whole; read it from the agent server's events API`,
  };
}

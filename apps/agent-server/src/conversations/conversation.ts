import { randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type {
  AgentEvent,
  ConversationInfo,
  ExecutionStatus,
} from "@sandbox-server/agent-contracts";
import { advanceClockPast, nextInstant } from "../clock";
import type { Logger } from "../logger";
import { type EventLogFiles, isMissing, readEventLog } from "./event-log";

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** An event before it is appended: the log gives it its timestamp (and an id if it has none). */
export type EventDraft = DistributiveOmit<AgentEvent, "id" | "timestamp"> & { id?: string };

export interface Subscriber {
  /** `json` is the event as stored (JSON.stringify of it), for subscribers that send it on. */
  onEvent(event: AgentEvent, json: string): void;
  /** The conversation was deleted; no event follows. */
  onRemoved(): void;
}

/** What meta.json holds: the conversation's info plus the agent's progress through the log. */
export interface ConversationMeta {
  info: ConversationInfo;
  /** Events before this index have been seen by the agent; later user messages are pending. */
  cursor: number;
}

export const META_FILE = "meta.json";
/** meta.json being written; complete, and the only one, when a crash came mid-replace. */
export const META_TEMPORARY = "meta.json.tmp";
export const EVENTS_FILE = "events.jsonl";

/**
 * `updated_at` moves with every event; meta.json gets it at most this long after, in one write
 * for all the events meanwhile (and at once on shutdown). A killed process loses at most this
 * much of `updated_at`, nothing else: the events themselves are in the log before they are
 * published.
 */
export const EVENT_META_SAVE_DELAY_MS = 1000;

/**
 * One conversation: its info (in memory, saved to meta.json on change) and its event log
 * (events.jsonl, read on first use so that idle conversations cost only their info).
 */
export class Conversation {
  private log: AgentEvent[] | undefined;
  private readonly byId = new Map<string, AgentEvent>();
  private readonly subscribers = new Set<Subscriber>();
  private removed = false;
  /** meta holds a change that meta.json does not have yet. */
  private savePending = false;
  /** That change includes one that is saved at the end of this turn (saveSoon). */
  private statusUnsaved = false;
  private saveAtTurnEnd = false;
  private saveTimer: NodeJS.Timeout | undefined;
  readonly eventsFile: string;

  constructor(
    readonly dir: string,
    private meta: ConversationMeta,
    private readonly logFiles: EventLogFiles,
    private readonly logger: Logger,
  ) {
    this.eventsFile = path.join(dir, EVENTS_FILE);
  }

  get id(): string {
    return this.meta.info.id;
  }

  get info(): Readonly<ConversationInfo> {
    return this.meta.info;
  }

  get status(): ExecutionStatus {
    return this.meta.info.execution_status;
  }

  get cursor(): number {
    return this.meta.cursor;
  }

  get isRemoved(): boolean {
    return this.removed;
  }

  /** All events in order, loading them from disk the first time. */
  events(): readonly AgentEvent[] {
    return this.loadedLog();
  }

  private loadedLog(): AgentEvent[] {
    if (!this.log) {
      this.log = readEventLog(this.eventsFile, this.logger);
      for (const event of this.log) this.byId.set(event.id, event);
      // Even if the wall clock went back since these were written, new events sort after them.
      const last = this.log.at(-1);
      if (last) advanceClockPast(last.timestamp);
    }
    return this.log;
  }

  findEvent(id: string): AgentEvent | undefined {
    this.events();
    return this.byId.get(id);
  }

  /** Stamps, stores and publishes an event. After removal it is dropped silently. */
  append(draft: EventDraft): AgentEvent {
    // Loaded before stamping, so the clock is already past this log's last timestamp.
    const log = this.removed ? undefined : this.loadedLog();
    const instant = nextInstant();
    const { id = randomUUID(), ...fields } = draft;
    const event = { id, timestamp: instant.iso, ...fields } as AgentEvent;
    if (!log) return event;
    const json = JSON.stringify(event);
    this.logFiles.append(this.eventsFile, json);
    log.push(event);
    this.byId.set(event.id, event);
    this.meta.info = { ...this.meta.info, updated_at: instant.iso };
    this.saveAfterEvents();
    for (const subscriber of this.subscribers) subscriber.onEvent(event, json);
    return event;
  }

  /** Records the change as a ConversationStateUpdateEvent; no event when nothing changes. */
  setStatus(status: ExecutionStatus): void {
    if (status === this.status) return;
    this.meta.info = { ...this.meta.info, execution_status: status };
    this.append({
      kind: "ConversationStateUpdateEvent",
      source: "environment",
      key: "execution_status",
      value: status,
    });
    this.saveSoon();
  }

  update(fields: Partial<Pick<ConversationInfo, "title" | "tags" | "stats">>): void {
    this.meta.info = { ...this.meta.info, ...fields, updated_at: nextInstant().iso };
    this.save();
  }

  advanceCursor(to: number): void {
    if (to <= this.meta.cursor) return;
    this.meta.cursor = to;
    this.save();
  }

  /** Live events from now on; returns the unsubscribe function. */
  subscribe(subscriber: Subscriber): () => void {
    this.subscribers.add(subscriber);
    return () => this.subscribers.delete(subscriber);
  }

  markRemoved(): void {
    this.removed = true;
    clearTimeout(this.saveTimer);
    for (const subscriber of this.subscribers) subscriber.onRemoved();
    this.subscribers.clear();
  }

  save(): void {
    this.savePending = false;
    this.statusUnsaved = false;
    clearTimeout(this.saveTimer);
    this.saveTimer = undefined;
    if (this.removed) return;
    writeMeta(this.dir, this.meta);
  }

  /**
   * Saves at the end of this turn of the event loop, once, whatever changed meanwhile: a run's
   * start changes the status and then the cursor (saved at once, before the command runs) in
   * the same turn, and each save is a file written and renamed, which a busy disk makes slow.
   * The status is in the event log already. When something saved it meanwhile, events appended
   * since (an agent's ActionEvent) wait for their own save (saveAfterEvents): a write at the end
   * of the turn would only move `updated_at`, while the agent's command runs.
   */
  private saveSoon(): void {
    this.savePending = true;
    this.statusUnsaved = true;
    if (this.saveAtTurnEnd) return;
    this.saveAtTurnEnd = true;
    setImmediate(() => {
      this.saveAtTurnEnd = false;
      if (this.statusUnsaved) this.save();
    });
  }

  /** Saves within EVENT_META_SAVE_DELAY_MS (see there), unless something saves sooner. */
  private saveAfterEvents(): void {
    this.savePending = true;
    if (this.saveTimer) return;
    this.saveTimer = setTimeout(() => {
      this.saveTimer = undefined;
      if (this.savePending) this.save();
    }, EVENT_META_SAVE_DELAY_MS);
    // Shutdown flushes it; it never keeps a process alive on its own.
    this.saveTimer.unref();
  }

  /** Saves a change still waiting for the end of the turn or the timer (shutdown). */
  flush(): void {
    if (this.savePending) this.save();
  }
}

/**
 * Write-then-rename, so a crash leaves the old meta.json or the new one, never half of one. The
 * old one is removed first: ext4 writes a file renamed over another to disk there and then
 * (auto_da_alloc), which held every status change up for milliseconds on a busy disk, for a
 * safety against power loss that nothing else here has (nothing is fsynced). A crash between the
 * removal and the rename leaves the whole new file as META_TEMPORARY, which the store loads.
 */
export function writeMeta(dir: string, meta: ConversationMeta, replacing = true): void {
  const file = path.join(dir, META_FILE);
  const temporary = path.join(dir, META_TEMPORARY);
  fs.writeFileSync(temporary, JSON.stringify(meta), { mode: 0o600 });
  if (replacing) removeIfPresent(file);
  fs.renameSync(temporary, file);
}

function removeIfPresent(file: string): void {
  try {
    fs.unlinkSync(file);
  } catch (error) {
    if (!isMissing(error)) throw error;
  }
}

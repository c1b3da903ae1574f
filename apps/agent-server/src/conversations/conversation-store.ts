import fs from "node:fs";
import path from "node:path";
import { ConversationInfo } from "@sandbox-server/agent-contracts";
import { z } from "zod";
import { advanceClockPast } from "../clock";
import { describeError, type Logger } from "../logger";
import {
  Conversation,
  type ConversationMeta,
  META_FILE,
  META_TEMPORARY,
  writeMeta,
} from "./conversation";
import { EventLogFiles, isMissing } from "./event-log";

const StoredMeta = z.object({ info: ConversationInfo, cursor: z.int().min(0) });

/**
 * Every conversation of this agent server, indexed in memory, stored as
 * `<root>/conversations/<id>/{meta.json,events.jsonl}`.
 */
export class ConversationStore {
  private readonly conversations = new Map<string, Conversation>();
  private readonly logFiles = new EventLogFiles();
  private readonly root: string;

  constructor(
    dataDir: string,
    private readonly logger: Logger,
  ) {
    this.root = path.join(dataDir, "conversations");
  }

  /** Reads every meta.json (events stay on disk until used). */
  load(): void {
    fs.mkdirSync(this.root, { recursive: true });
    for (const entry of fs.readdirSync(this.root, { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      const dir = path.join(this.root, entry.name);
      const meta = this.readMeta(dir);
      if (!meta) continue;
      advanceClockPast(meta.info.updated_at);
      this.conversations.set(meta.info.id, new Conversation(dir, meta, this.logFiles, this.logger));
    }
    this.logger.info("conversations loaded", { count: this.conversations.size });
  }

  get(id: string): Conversation | undefined {
    return this.conversations.get(id);
  }

  all(): Conversation[] {
    return [...this.conversations.values()];
  }

  create(info: ConversationInfo): Conversation {
    const dir = path.join(this.root, info.id);
    fs.mkdirSync(dir, { recursive: true });
    const meta: ConversationMeta = { info, cursor: 0 };
    writeMeta(dir, meta, false);
    const conversation = new Conversation(dir, meta, this.logFiles, this.logger);
    this.conversations.set(info.id, conversation);
    return conversation;
  }

  /** Writes every change still waiting to be saved and closes the event logs (shutdown). */
  close(): void {
    for (const conversation of this.conversations.values()) conversation.flush();
    this.logFiles.closeAll();
  }

  /** How many event logs are open (for tests). */
  get openLogCount(): number {
    return this.logFiles.openCount;
  }

  remove(conversation: Conversation): void {
    conversation.markRemoved();
    this.conversations.delete(conversation.id);
    this.logFiles.close(conversation.eventsFile);
    fs.rmSync(conversation.dir, { recursive: true, force: true });
  }

  private readMeta(dir: string): ConversationMeta | undefined {
    try {
      const file = path.join(dir, META_FILE);
      const [text, interrupted] = readEither(file, path.join(dir, META_TEMPORARY));
      const parsed = StoredMeta.safeParse(JSON.parse(text));
      if (parsed.success) {
        // A replace cut short by a crash: finished here, before the next save overwrites it.
        if (interrupted) fs.renameSync(path.join(dir, META_TEMPORARY), file);
        return parsed.data;
      }
      this.logger.warn("skipping conversation with invalid meta.json", { dir });
    } catch (error) {
      if (!isMissing(error)) {
        this.logger.warn("skipping unreadable conversation", { dir, error: describeError(error) });
      }
    }
    return undefined;
  }
}

/**
 * meta.json's text, or, when only the temporary file is there (writeMeta was interrupted between
 * removing the old file and renaming the new one), the temporary file's and `true`.
 */
function readEither(file: string, temporary: string): [string, boolean] {
  try {
    return [fs.readFileSync(file, "utf8"), false];
  } catch (error) {
    if (!isMissing(error)) throw error;
    return [fs.readFileSync(temporary, "utf8"), true];
  }
}

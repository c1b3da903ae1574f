import fs from "node:fs";
import type { AgentEvent } from "@sandbox-server/agent-contracts";
import type { Logger } from "../logger";

/**
 * A conversation's events as JSON Lines, one event per line, in their order. Synchronous on
 * purpose: an append is on disk before it is published, and reads never race with appends.
 */
export function readEventLog(file: string, logger: Logger): AgentEvent[] {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (error) {
    if (isMissing(error)) return [];
    throw error;
  }
  repairTornTail(file, text, logger);
  const events: AgentEvent[] = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    try {
      events.push(JSON.parse(line) as AgentEvent);
    } catch {
      logger.warn("skipping unreadable event line", { file });
    }
  }
  return events;
}

/** Open logs beyond this are closed, the one opened first first, and reopened at their next append. */
const MAX_OPEN_LOGS = 64;

/**
 * The event logs' append descriptors, kept open between appends: an append is one write(2), not
 * an open, a write and a close. Each line is in the file (the page cache, as with any write)
 * when `append` returns; a crash mid-write leaves a torn last line, which `readEventLog` cuts.
 * A log must be closed here before its file is removed.
 */
export class EventLogFiles {
  private readonly open = new Map<string, number>();

  constructor(private readonly limit = MAX_OPEN_LOGS) {}

  /** Appends one JSON line (`json` without its newline). */
  append(file: string, json: string): void {
    let fd = this.open.get(file);
    if (fd === undefined) {
      if (this.open.size >= this.limit) this.closeFirstOpened();
      fd = fs.openSync(file, "a");
      this.open.set(file, fd);
    }
    writeWhole(fd, `${json}\n`);
  }

  /** How many logs are open (for tests). */
  get openCount(): number {
    return this.open.size;
  }

  close(file: string): void {
    const fd = this.open.get(file);
    if (fd === undefined) return;
    this.open.delete(file);
    fs.closeSync(fd);
  }

  closeAll(): void {
    for (const file of [...this.open.keys()]) this.close(file);
  }

  private closeFirstOpened(): void {
    const [first] = this.open.keys();
    if (first !== undefined) this.close(first);
  }
}

/** A regular file takes the whole line in one write; the loop covers a short write anyway. */
function writeWhole(fd: number, line: string): void {
  const written = fs.writeSync(fd, line);
  const length = Buffer.byteLength(line);
  if (written === length) return;
  const bytes = Buffer.from(line);
  for (let offset = written; offset < length; ) offset += fs.writeSync(fd, bytes, offset);
}

/** A crash mid-append leaves a line without its newline; cut it so the next append stays whole. */
function repairTornTail(file: string, text: string, logger: Logger): void {
  if (text === "" || text.endsWith("\n")) return;
  const keep = Buffer.byteLength(text.slice(0, text.lastIndexOf("\n") + 1));
  fs.truncateSync(file, keep);
  logger.warn("cut a torn last event line", { file });
}

export function isMissing(error: unknown): boolean {
  return typeof error === "object" && error !== null && "code" in error && error.code === "ENOENT";
}

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

export function appendToEventLog(file: string, event: AgentEvent): void {
  fs.appendFileSync(file, `${JSON.stringify(event)}\n`);
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

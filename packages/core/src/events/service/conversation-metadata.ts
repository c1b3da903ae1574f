import { ExecutionStatus } from "@sandbox-server/agent-contracts";
import type { ConversationPatch, ConversationRow, EventActivity } from "@sandbox-server/db";
import type { IncomingEvent } from "../contracts";

const TITLE_LENGTH = 80;

/**
 * What one stored event tells about its conversation: its time always; execution_status from a
 * state update; a title from a user message (used only while the conversation has none).
 */
export function eventActivity(event: IncomingEvent, eventMs: number): EventActivity {
  let executionStatus: string | null = null;
  if (event.kind === "ConversationStateUpdateEvent" && event.key === "execution_status") {
    const status = ExecutionStatus.safeParse(event.value);
    if (status.success) executionStatus = status.data;
  }
  const title =
    event.kind === "MessageEvent" && event.source === "user" ? titleFrom(event.llm_message) : null;
  return { eventMs, executionStatus, title };
}

/**
 * Two events' activity as one, for one update per conversation per batch: the same record as
 * applying `earlier`, then `later` (times only forward, the newer status, the first title).
 */
export function mergeActivity(earlier: EventActivity, later: EventActivity): EventActivity {
  return {
    eventMs: Math.max(earlier.eventMs, later.eventMs),
    executionStatus: later.executionStatus ?? earlier.executionStatus,
    title: earlier.title ?? later.title,
  };
}

/** execution_status from a `full_state` frame, when it differs from the record's. */
export function fullStatePatch(row: ConversationRow, value: unknown): ConversationPatch | null {
  const status = ExecutionStatus.safeParse(
    (value as { execution_status?: unknown } | null)?.execution_status,
  );
  if (!status.success || status.data === row.executionStatus) return null;
  return { executionStatus: status.data };
}

/** The text of a message, whitespace collapsed, shortened to about TITLE_LENGTH characters. */
function titleFrom(message: unknown): string | null {
  const content = (message as { content?: unknown } | null)?.content;
  if (!Array.isArray(content)) return null;
  const text = content
    .map((item) => (item as { type?: unknown; text?: unknown } | null) ?? {})
    .filter((item) => item.type === "text" && typeof item.text === "string")
    .map((item) => item.text)
    .join(" ")
    .replace(/\s+/g, " ")
    .trim();
  if (!text) return null;
  return text.length <= TITLE_LENGTH ? text : `${text.slice(0, TITLE_LENGTH - 1).trimEnd()}…`;
}

import type { ConversationPatch, ConversationRow } from "@sandbox-server/db";
import { ExecutionStatus } from "../../agent-contracts";
import type { IncomingEvent } from "../contracts";

const TITLE_LENGTH = 80;

/**
 * How one stored event moves the conversation's record: activity times always; execution_status
 * from a state update; the title from the first user message when the caller gave none.
 */
export function metadataPatch(
  row: ConversationRow,
  event: IncomingEvent,
  eventMs: number,
): ConversationPatch {
  const patch: ConversationPatch = {
    lastEventAt: Math.max(row.lastEventAt ?? 0, eventMs),
    updatedAt: Math.max(row.updatedAt, eventMs),
  };
  if (event.kind === "ConversationStateUpdateEvent" && event.key === "execution_status") {
    const status = ExecutionStatus.safeParse(event.value);
    if (status.success) patch.executionStatus = status.data;
  }
  if (row.title === null && event.kind === "MessageEvent" && event.source === "user") {
    const title = titleFrom(event.llm_message);
    if (title) patch.title = title;
  }
  return patch;
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

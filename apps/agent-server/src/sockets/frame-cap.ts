/**
 * Largest event frame the socket sends whole. A bigger event (a command that printed tens of MiB)
 * goes out as a placeholder that names it, so a client with a frame limit (the control plane's
 * follower) moves on instead of reconnecting into the same frame forever. The whole event stays
 * readable over REST (`GET /api/conversations/{id}/events/{event_id}`).
 */
export const MAX_EVENT_FRAME_BYTES = 16 * 1024 * 1024;

interface EventLike {
  id?: unknown;
  timestamp?: unknown;
  kind?: unknown;
  source?: unknown;
}

/**
 * The frame for `event`: its JSON (`json` when the caller has it already), or a placeholder when
 * that is over `maxBytes`.
 */
export function eventFrame(
  event: EventLike,
  json?: string,
  maxBytes = MAX_EVENT_FRAME_BYTES,
): string {
  const text = json ?? JSON.stringify(event);
  if (Buffer.byteLength(text) <= maxBytes) return text;
  return JSON.stringify({
    id: event.id,
    timestamp: event.timestamp,
    kind: event.kind,
    source: event.source,
    truncated: true,
    original_size_bytes: Buffer.byteLength(text),
    detail: `The event is larger than ${maxBytes} bytes; read it whole from the events API`,
  });
}

import { IncomingEvent } from "../contracts";

type Parsed = ReturnType<typeof IncomingEvent.safeParse>;

const KNOWN = new Set(["id", "timestamp", "kind", "source"]);

const within = (value: unknown, min: number, max: number): value is string =>
  typeof value === "string" && value.length >= min && value.length <= max;

/**
 * `IncomingEvent.safeParse(frame)` with a fast path for the frame an agent server normally sends
 * (every followed event passes here; zod's object parse is most of the follower's own cost per
 * event). The fast path accepts only what the schema accepts
 * and builds the same object (the schema's keys first, then the rest as sent, values shared);
 * anything else — a field missing or out of bounds, an unusual object — is the schema's to decide,
 * so what is rejected, and how, is unchanged.
 */
export function parseIncomingEvent(frame: unknown): Parsed {
  if (
    typeof frame !== "object" ||
    frame === null ||
    Object.getPrototypeOf(frame) !== Object.prototype
  )
    return IncomingEvent.safeParse(frame);
  const f = frame as Record<string, unknown>;
  if (
    !within(f.id, 1, 128) ||
    !within(f.timestamp, 1, 64) ||
    !within(f.kind, 1, 64) ||
    !within(f.source, 0, 32) ||
    Object.hasOwn(f, "__proto__")
  )
    return IncomingEvent.safeParse(frame);
  const data: IncomingEvent = { id: f.id, timestamp: f.timestamp, kind: f.kind, source: f.source };
  for (const key of Object.keys(f)) if (!KNOWN.has(key)) data[key] = f[key];
  return { success: true, data } as Parsed;
}

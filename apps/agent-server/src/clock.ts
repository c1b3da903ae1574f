/**
 * Event timestamps: UTC ISO 8601 with microseconds, strictly increasing for the whole process.
 * Unique timestamps make `resend_mode=since&after_timestamp=` exact: events strictly after the
 * given instant are every event the client has not seen, with no duplicate.
 */
let lastMicros = 0;

export interface Instant {
  iso: string;
  micros: number;
}

/** Returns a timestamp later than every one returned before. */
export function nextInstant(): Instant {
  const micros = Math.max(Date.now() * 1000, lastMicros + 1);
  lastMicros = micros;
  return { iso: formatMicros(micros), micros };
}

/** After a restart, never hand out a timestamp older than what is already stored. */
export function advanceClockPast(iso: string): void {
  const micros = parseTimestamp(iso);
  if (micros !== undefined && micros > lastMicros) lastMicros = micros;
}

/** The last second formatted: timestamps come in bursts within one second. */
let formatted = { seconds: Number.NaN, base: "" };

export function formatMicros(micros: number): string {
  const seconds = Math.floor(micros / 1_000_000);
  if (seconds !== formatted.seconds) {
    formatted = { seconds, base: new Date(seconds * 1000).toISOString().slice(0, 19) };
  }
  const fraction = String(micros - seconds * 1_000_000).padStart(6, "0");
  return `${formatted.base}.${fraction}Z`;
}

const isoPattern =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?(Z|[+-]\d{2}:?\d{2})?$/i;

/**
 * Microseconds since the epoch, or undefined when not an ISO timestamp. A timestamp without a
 * zone is read as UTC (the OpenHands server emits naive timestamps; clients echo them back).
 */
export function parseTimestamp(text: string): number | undefined {
  const match = isoPattern.exec(text.trim());
  if (!match) return undefined;
  const [, y, mo, d, h = "0", mi = "0", s = "0", fraction = "", zone = "Z"] = match;
  const millis = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  if (Number.isNaN(millis)) return undefined;
  const micros = millis * 1000 + Number(fraction.padEnd(6, "0").slice(0, 6));
  return micros - zoneOffsetMinutes(zone) * 60_000_000;
}

function zoneOffsetMinutes(zone: string): number {
  if (zone.toUpperCase() === "Z") return 0;
  const digits = zone.slice(1).replace(":", "");
  const minutes = Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2));
  return zone.startsWith("-") ? -minutes : minutes;
}

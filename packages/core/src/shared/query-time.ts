import { z } from "zod";

const ISO =
  /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2}(?:\.(\d{1,9}))?)?)(Z|[+-]\d{2}:?\d{2})?$/i;

/**
 * Microseconds since the epoch of an ISO 8601 date-time as OpenHands clients send it
 * (`toISOString()`, Python's `isoformat()`), or undefined. Without a zone it is UTC; a `+` that a
 * query string turned into a space before the offset is read as `+`.
 */
export function parseQueryTime(text: string): number | undefined {
  const match = ISO.exec(text.trim().replace(/ (\d{2}:?\d{2})$/, "+$1"));
  if (!match) return undefined;
  const [, date, time = "", fraction = "", zone = "Z"] = match;
  const clock = time.length === 5 ? `${time}:00` : time.replace(/\.\d+$/, "");
  const offset = /^[+-]\d{4}$/.test(zone) ? `${zone.slice(0, 3)}:${zone.slice(3)}` : zone;
  const millis = Date.parse(`${date}T${clock}${offset}`);
  if (Number.isNaN(millis)) return undefined;
  return millis * 1000 + Number(fraction.padEnd(6, "0").slice(0, 6));
}

/** A date-time query parameter, as microseconds since the epoch. */
export const QueryDateTime = z
  .string()
  .max(64)
  .transform((value, ctx) => {
    const micros = parseQueryTime(value);
    if (micros === undefined) {
      ctx.addIssue({ code: "custom", message: "expected an ISO 8601 date-time" });
      return z.NEVER;
    }
    return micros;
  })
  .describe("ISO 8601 date-time, e.g. 2026-05-07T12:14:56.123Z (UTC when no zone is given)");

/** Microseconds to milliseconds, rounding up: `>= from` in µs stays `>= from` in ms. */
export function microsToMillisCeil(micros: number): number {
  return Math.ceil(micros / 1000);
}

const ISO = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})?$/i;

/**
 * Microseconds since the epoch of an agent server's timestamp (UTC ISO 8601 with microseconds; a
 * timestamp without a zone is UTC), or undefined when it is not one. Microseconds keep the order
 * of events that the agent server stamped within the same millisecond.
 */
export function timestampMicros(text: string): number | undefined {
  const match = ISO.exec(text);
  if (!match?.[1]) return undefined;
  const millis = Date.parse(`${match[1]}${match[3] ?? "Z"}`);
  if (Number.isNaN(millis)) return undefined;
  return millis * 1000 + Number((match[2] ?? "").padEnd(6, "0").slice(0, 6));
}

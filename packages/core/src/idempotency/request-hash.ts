import { createHash } from "node:crypto";

/** JSON with object keys sorted at every level: the same input always gives the same text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/**
 * sha256 of the procedure path and the canonical input, as received (before defaults): a create
 * without input is the same request as one with `{}` (REST sends `{}` for an empty body).
 */
export function requestHash(path: string, rawInput: unknown): string {
  const input = rawInput === undefined || rawInput === null ? {} : rawInput;
  return createHash("sha256").update(path).update("\n").update(canonicalJson(input)).digest("hex");
}

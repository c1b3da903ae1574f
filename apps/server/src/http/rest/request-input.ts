import { AppError } from "@sandbox-server/core";

/** Path parameters, percent-decoded (`sb%5Fx` → `sb_x`); a broken escape is a validation error. */
export function decodeParams(params: [name: string, raw: string][]): Record<string, string> {
  const entries = params.map(([name, raw]): [string, string] => {
    try {
      return [name, decodeURIComponent(raw)];
    } catch {
      throw new AppError("VALIDATION_FAILED", "Input validation failed", {
        issues: [{ path: [name], message: "not valid percent-encoding" }],
      });
    }
  });
  return Object.fromEntries(entries);
}

/**
 * Query parameters as strings, a repeated key as an array of them. Nothing is coerced here: the
 * procedure's input schema says which values are numbers (`z.coerce`) or booleans.
 */
export function parseQuery(search: string): Record<string, string | string[]> {
  const values = new Map<string, string | string[]>();
  if (search === "") return {};
  for (const [key, value] of new URLSearchParams(search)) {
    const seen = values.get(key);
    if (seen === undefined) values.set(key, value);
    else if (Array.isArray(seen)) seen.push(value);
    else values.set(key, [seen, value]);
  }
  // fromEntries defines own properties: a `__proto__` key stays a plain (ignored) key.
  return Object.fromEntries(values);
}

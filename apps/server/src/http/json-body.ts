import type { NextFunction, Request, Response } from "express";
import { sendError } from "./rest-errors";

/** No real payload nests this deep; JSON.stringify and validators recurse and overflow far deeper. */
export const MAX_JSON_DEPTH = 256;

function nestsDeeperThan(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop() as [unknown, number];
    if (current === null || typeof current !== "object") continue;
    if (depth > limit) return true;
    for (const child of Object.values(current)) stack.push([child, depth + 1]);
  }
  return false;
}

/**
 * A parsed REST body must be a JSON object of sane depth. trpc-to-openapi spreads the body into
 * the input, so `true`, `5` or `[...]` would otherwise pass as `{}`; and a body nested thousands
 * deep overflows the stack when it is serialised again (a 500).
 */
export function requireJsonObject(req: Request, res: Response, next: NextFunction): void {
  const body: unknown = req.body;
  if (body === undefined) {
    next();
  } else if (body === null || typeof body !== "object" || Array.isArray(body)) {
    sendError(res, 422, "VALIDATION_FAILED", "The request body must be a JSON object", {
      issues: [{ path: [], message: "Expected a JSON object" }],
    });
  } else if (nestsDeeperThan(body, MAX_JSON_DEPTH)) {
    sendError(res, 422, "VALIDATION_FAILED", "The request body is nested too deeply", {
      issues: [{ path: [], message: `Nested deeper than ${MAX_JSON_DEPTH} levels` }],
    });
  } else {
    next();
  }
}

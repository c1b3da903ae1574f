import { createHash, timingSafeEqual } from "node:crypto";
import type { RequestHandler } from "express";

export const SESSION_KEY_HEADER = "x-session-api-key";

/** Session-key check shared by HTTP and WebSocket. With no keys configured, all is allowed. */
export interface KeyChecker {
  required: boolean;
  accepts(candidate: string | undefined): boolean;
}

export function createKeyChecker(keys: readonly string[]): KeyChecker {
  // Comparing fixed-length digests keeps the comparison constant-time whatever the lengths.
  const digests = keys.map(digest);
  return {
    required: digests.length > 0,
    accepts(candidate) {
      if (digests.length === 0) return true;
      if (!candidate) return false;
      const given = digest(candidate);
      return digests.some((known) => timingSafeEqual(known, given));
    },
  };
}

export function requireSessionKey(checker: KeyChecker): RequestHandler {
  return (req, res, next) => {
    if (checker.accepts(req.get(SESSION_KEY_HEADER))) {
      next();
      return;
    }
    res.status(401).json({ detail: "Unauthorized" });
  };
}

function digest(value: string): Buffer {
  return createHash("sha256").update(value).digest();
}

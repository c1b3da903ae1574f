import type { User } from "@sandbox-server/db";
import { findUserByKeyHash, presentedKeyHash } from "./auth/api-keys";
import type { CoreDeps } from "./deps";
import type { IdempotencyState } from "./idempotency/key";
import type { Logger } from "./logger";

export interface Context {
  deps: CoreDeps;
  user: User | null;
  log: Logger;
  /** Hash of the API key the request was authenticated with (null without a user). */
  apiKeyHash: string | null;
  /** The exact request body bytes (REST); send-message forwards them unchanged. */
  rawBody: Buffer | undefined;
  /** `X-Session-API-Key` as presented: a sandbox's own key (sandbox-scoped routes check it). */
  sessionApiKey: string | null;
  /** `Idempotency-Key` as presented (creates use it); `replayed` is set when the answer is a replay. */
  idempotency: IdempotencyState;
}

export interface ContextInput {
  deps: CoreDeps;
  apiKey: string | null;
  /** The request's id, asked for when a line is logged (made on demand: most requests log none). */
  requestId?: () => string;
  rawBody?: Buffer | undefined;
  sessionApiKey?: string | null;
  idempotencyKey?: string | null;
}

/** Transport-agnostic context: used by the express adapters and by `createCaller` in tests. */
export async function createContextInner(input: ContextInput): Promise<Context> {
  // Asked for once, when the request's logger is first used (RequestLogger binds it).
  const requestId = input.requestId ?? (() => crypto.randomUUID());
  const keyHash = presentedKeyHash(input.apiKey);
  const user = keyHash ? ((await findUserByKeyHash(input.deps, keyHash)) ?? null) : null;
  return {
    deps: input.deps,
    user,
    apiKeyHash: user ? keyHash : null,
    log: new RequestLogger(input.deps.log, requestId),
    rawBody: input.rawBody,
    sessionApiKey: input.sessionApiKey ?? null,
    idempotency: { key: input.idempotencyKey ?? null, replayed: false },
  };
}

/**
 * The request's logger: the core's with the request id bound, made when the request first logs a
 * line. Most requests log nothing, and a pino child (bindings serialised per child) per request
 * was measurable on send-message's path.
 */
class RequestLogger implements Logger {
  private bound: Logger | null = null;

  constructor(
    private readonly base: Logger,
    private readonly requestId: () => string,
  ) {}

  private get log(): Logger {
    this.bound ??= this.base.child({ requestId: this.requestId() });
    return this.bound;
  }

  info(...line: Parameters<Logger["info"]>): void {
    this.log.info(...line);
  }

  warn(...line: Parameters<Logger["warn"]>): void {
    this.log.warn(...line);
  }

  error(...line: Parameters<Logger["error"]>): void {
    this.log.error(...line);
  }

  debug(...line: Parameters<Logger["debug"]>): void {
    this.log.debug(...line);
  }

  child(bindings: Record<string, unknown>): Logger {
    return this.log.child(bindings);
  }
}

export { idempotencyKeyFromHeaders } from "./idempotency/key";

/** Reads the key from `Authorization: Bearer <key>` or `X-API-Key`. */
export function apiKeyFromHeaders(headers: Record<string, string | string[] | undefined>) {
  const authorization = headers.authorization;
  if (typeof authorization === "string") {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (match?.[1]) return match[1];
  }
  const header = headers["x-api-key"];
  return typeof header === "string" && header.length > 0 ? header : null;
}

/** The `X-Session-API-Key` header, if one non-empty value was sent. */
export function sessionKeyFromHeaders(headers: Record<string, string | string[] | undefined>) {
  const header = headers["x-session-api-key"];
  return typeof header === "string" && header.length > 0 ? header : null;
}

import type { CoreDeps } from "../deps";
import { describeError } from "../describe-error";

/** The channel on which replicas tell each other which verified keys to forget. */
export const KEY_NOTICE_CHANNEL = "sandbox_server_api_keys";

/** What to forget: one key (by hash), or every key of a user. */
export type ForgottenKeys = { keyHash: string } | { userId: string };

function payloadOf(forgotten: ForgottenKeys): string {
  return "keyHash" in forgotten ? `key:${forgotten.keyHash}` : `user:${forgotten.userId}`;
}

/**
 * Drops keys from this replica's verified-key cache and tells the other replicas to drop them
 * too (a revoke or a disable is then refused everywhere at once, not after the cache's 30 s). A
 * notice that cannot be sent is logged: the others then drop the key when it expires.
 */
export async function forgetKeys(
  deps: Pick<CoreDeps, "apiKeyCache" | "log" | "notices">,
  forgotten: ForgottenKeys,
): Promise<void> {
  forgetHere(deps, forgotten);
  if (!deps.notices) return;
  await deps.notices.publish(KEY_NOTICE_CHANNEL, payloadOf(forgotten)).catch((error: unknown) => {
    deps.log.warn(
      { reason: describeError(error).message },
      "other replicas not told of a revoked key: they refuse it once their cache expires",
    );
  });
}

function forgetHere(deps: Pick<CoreDeps, "apiKeyCache">, forgotten: ForgottenKeys): void {
  if ("keyHash" in forgotten) deps.apiKeyCache.forget(forgotten.keyHash);
  else deps.apiKeyCache.forgetWhere((user) => user.id === forgotten.userId);
}

/**
 * Listens for the other replicas' notices (over a shared store); every notice that may have been
 * missed empties the cache. Resolves with the function that stops listening (null without
 * notices). A listener that cannot start is logged: the cache's lifetime still bounds staleness.
 */
export async function listenForForgottenKeys(
  deps: Pick<CoreDeps, "apiKeyCache" | "log" | "notices">,
): Promise<(() => Promise<void>) | null> {
  if (!deps.notices) return null;
  const onNotice = (payload: string) => {
    if (payload.startsWith("key:")) forgetHere(deps, { keyHash: payload.slice(4) });
    else if (payload.startsWith("user:")) forgetHere(deps, { userId: payload.slice(5) });
  };
  try {
    return await deps.notices.listen(KEY_NOTICE_CHANNEL, onNotice, () => deps.apiKeyCache.clear());
  } catch (error) {
    deps.log.warn(
      { reason: describeError(error).message },
      "not listening for other replicas' revoked keys: their revokes take effect here when the cache expires",
    );
    return null;
  }
}

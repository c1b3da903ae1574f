import type { User } from "@sandbox-server/db";
import type { CoreDeps } from "../deps";
import { AppError } from "../errors";
import { waitForCreate } from "../state/in-flight";
import {
  type CreateBoundConfig,
  claimKey,
  completeClaim,
  createBoundMs,
  releaseClaim,
} from "./claim";
import { checkIdempotencyKey, type IdempotencyState } from "./key";
import { requestHash } from "./request-hash";

type Result = { ok: true; data: unknown } | { ok: false };

export interface IdempotentCall<R extends Result> {
  deps: Pick<CoreDeps, "creates" | "log" | "now" | "repos" | "transaction"> & {
    config: CreateBoundConfig;
  };
  user: User;
  /** The request's state (shared with the adapters, which read `replayed`). */
  state: IdempotencyState;
  /** The key as presented (`state.key`), checked here. */
  key: string;
  /** The procedure path (`sandboxes.start`): part of the request hash. */
  path: string;
  /** The status a success answers (201), stored with the body. */
  successStatus: number;
  getRawInput: () => Promise<unknown>;
  /** Runs the create. */
  next: () => Promise<R>;
  /** A success result carrying a stored body, without running the create. */
  replay: (data: unknown) => R;
}

/**
 * A create under an `Idempotency-Key`: the first request with the key runs it and stores its
 * answer; a later one with the same body replays that answer (`state.replayed`), one with another
 * body is 422 `IDEMPOTENCY_KEY_REUSED`. A duplicate that arrives while the first still runs in this
 * process waits for it (at most the create bound) and then replays; one whose first runs in another
 * process, or still runs after the bound, is 409 `IDEMPOTENCY_KEY_IN_PROGRESS`.
 */
export async function runIdempotent<R extends Result>(call: IdempotentCall<R>): Promise<R> {
  const { deps } = call;
  const key = checkIdempotencyKey(call.key);
  const hash = requestHash(call.path, await call.getRawInput());
  const deadline = deps.now() + createBoundMs(deps.config);
  const running = deps.creates;
  // A claim can read the record in progress just before its create here completes it (over
  // PostgreSQL the completion does not wait for the claim's transaction): one more look then.
  let lookedAgain = false;
  for (;;) {
    // Registered before the claim commits, so a duplicate that sees the record finds it running.
    const create = deferred();
    const id = `idk_${crypto.randomUUID().replaceAll("-", "")}`;
    running.set(id, create.promise);
    let claim: Awaited<ReturnType<typeof claimKey>>;
    try {
      claim = await claimKey(deps, {
        id,
        userId: call.user.id,
        key,
        requestHash: hash,
        runningHere: (recordId) => running.has(recordId),
      });
    } catch (error) {
      running.delete(id);
      create.resolve();
      throw error;
    }
    if (claim.kind === "claimed") {
      call.state.recordId = id;
      return await runClaimed(call, id, create.resolve);
    }
    running.delete(id);
    create.resolve();
    if (claim.kind === "completed") {
      call.state.replayed = true;
      return call.replay(claim.body);
    }
    if (claim.kind === "reused") {
      throw new AppError("IDEMPOTENCY_KEY_REUSED", undefined, { details: { key } });
    }
    const left = deadline - deps.now();
    if (left > 0) {
      if (running.has(claim.id)) {
        if (await waitForCreate(running, claim.id, left)) continue;
      } else if (!lookedAgain) {
        lookedAgain = true;
        continue;
      }
    }
    throw new AppError("IDEMPOTENCY_KEY_IN_PROGRESS", undefined, { details: { key } });
  }
}

async function runClaimed<R extends Result>(
  call: IdempotentCall<R>,
  id: string,
  done: () => void,
): Promise<R> {
  const { deps } = call;
  try {
    const result = await call.next();
    try {
      if (!result.ok) await releaseClaim(deps.repos, id);
      else if (!call.state.answered) {
        await completeClaim(deps.repos, id, call.successStatus, result.data);
      }
    } catch (error) {
      // The create's own answer stands; the record stays in progress until it is abandoned.
      deps.log.error({ err: error }, "could not record the outcome of an idempotent create");
    }
    return result;
  } finally {
    deps.creates.delete(id);
    done();
  }
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve: () => void = () => {};
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

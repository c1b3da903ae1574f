import type { CoreDeps } from "../deps";

/**
 * The creates this process is running under a key, by record id: a duplicate waits on the first's
 * promise instead of polling the store. Memory only, per core.
 */
const inFlightByCore = new WeakMap<CoreDeps, Map<string, Promise<void>>>();

export function inFlight(deps: CoreDeps): Map<string, Promise<void>> {
  let running = inFlightByCore.get(deps);
  if (!running) {
    running = new Map();
    inFlightByCore.set(deps, running);
  }
  return running;
}

/** Resolves true when the record's create has ended, false after `ms` (or when none runs here). */
export async function waitForCreate(deps: CoreDeps, id: string, ms: number): Promise<boolean> {
  const running = inFlight(deps).get(id);
  if (!running) return false;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([running.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

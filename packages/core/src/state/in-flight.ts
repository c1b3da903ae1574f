/**
 * The creates this process is running under a key, by record id: a duplicate waits on the first's
 * promise instead of polling the store. Memory only, one per core.
 */
export type InFlightCreates = Map<string, Promise<void>>;

/** Resolves true when the record's create has ended, false after `ms` (or when none runs here). */
export async function waitForCreate(
  creates: InFlightCreates,
  id: string,
  ms: number,
): Promise<boolean> {
  const running = creates.get(id);
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

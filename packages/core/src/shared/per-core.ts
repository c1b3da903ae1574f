import type { CoreDeps } from "../deps";

/**
 * One `T` per core (or per ingest worker's deps), made by `make` on first use and kept as long as the core: memory-only state
 * of a service (caches, in-flight work) that every call on the same core shares.
 */
export function perCore<T, D extends object = CoreDeps>(make: (deps: D) => T): (deps: D) => T {
  const made = new WeakMap<D, T>();
  return (deps) => {
    let value = made.get(deps);
    if (value === undefined) {
      value = make(deps);
      made.set(deps, value);
    }
    return value;
  };
}

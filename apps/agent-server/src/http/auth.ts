export const SESSION_KEY_HEADER = "x-session-api-key";

/** Session-key check shared by HTTP and WebSocket. With no keys configured, all is allowed. */
export interface KeyChecker {
  readonly required: boolean;
  accepts(candidate: string | undefined): boolean;
  /** From now on only `keys` are accepted (a rotation: the keys before stop working at once). */
  replace(keys: readonly string[]): void;
}

export function createKeyChecker(initial: readonly string[]): KeyChecker {
  let keys = [...initial];
  // node:crypto is loaded at the first check, not at start (see "Footprint" in the README).
  let digests: Buffer[] | undefined;
  return {
    get required() {
      return keys.length > 0;
    },
    accepts(candidate) {
      if (keys.length === 0) return true;
      if (!candidate) return false;
      const crypto = process.getBuiltinModule("node:crypto");
      // Comparing fixed-length digests keeps the comparison constant-time whatever the lengths.
      const digest = (value: string) => crypto.hash("sha256", value, "buffer");
      digests ??= keys.map(digest);
      const given = digest(candidate);
      return digests.some((known) => crypto.timingSafeEqual(known, given));
    },
    replace(next) {
      keys = [...next];
      digests = undefined;
    },
  };
}

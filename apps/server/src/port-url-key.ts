import { hkdfSync } from "node:crypto";

/**
 * The key that signs port URLs: derived from the secrets key (which every replica on one
 * database shares) and a generation. Raising the generation on every replica replaces the key,
 * and with it every port URL handed out; the secrets key itself stays.
 */
export function derivePortUrlKey(secretsKey: Uint8Array, generation: number): Buffer {
  return Buffer.from(
    hkdfSync("sha256", secretsKey, "sandbox-server", `port-urls/generation-${generation}`, 32),
  );
}

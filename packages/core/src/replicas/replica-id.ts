import { randomBytes } from "node:crypto";

/** A random id per control-plane process: `rpl_` + 12 hex digits. A restart is a new replica. */
export function newReplicaId(): string {
  return `rpl_${randomBytes(6).toString("hex")}`;
}

import { NO_PORT_ACCESS } from "../schema";
import { NO_LIFETIME } from "./row-defaults";
import type { NewSandbox, SandboxRow } from "./rows";

/** The full row an insert writes (and answers). */
export function completeSandbox(row: NewSandbox): SandboxRow {
  return { ...NO_LIFETIME, portAccess: NO_PORT_ACCESS, ...row };
}

import { waitTimeoutField } from "../shared/wait-until";
import { SandboxIdInput, SandboxStatus } from "./contracts";

/** `GET /sandboxes/{id}`, optionally a long poll: `?wait_for=RUNNING&timeout_s=60`. */
export const GetSandboxInput = SandboxIdInput.extend({
  wait_for: SandboxStatus.optional().describe(
    "Wait (server side) until the sandbox is in this status, or ERROR (which it does not leave by itself), at most `timeout_s`; then answer it as it is. Check `status`: a timeout is not an error",
  ),
  ...waitTimeoutField,
});

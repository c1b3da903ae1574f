import { ExecutionStatus } from "@sandbox-server/agent-contracts";
import { z } from "zod";
import { waitTimeoutField } from "../shared/wait-until";
import { GetConversationInput } from "./contracts";

/** `GET /app-conversations/{id}`, optionally a long poll on `execution_status`. */
export const GetConversationWaitInput = GetConversationInput.extend({
  wait_for: z
    .enum([...ExecutionStatus.options, "settled"])
    .optional()
    .describe(
      "Wait (server side) until `execution_status` is this one (`settled`: any of idle, finished, paused, waiting_for_confirmation, error, stuck), or until it cannot change by itself (`sandbox_status` neither RUNNING nor STARTING), at most `timeout_s`; then answer the conversation as it is. Check `execution_status`: a timeout is not an error",
    ),
  ...waitTimeoutField,
});

import { BashCommand, BashOutput, ExecuteBashRequest } from "@sandbox-server/agent-contracts";
import { z } from "zod";
import type { AgentServerContext } from "../context";
import { firstValues, PageQuery, paginate } from "../http/paging";
import { sendJson } from "../http/respond";
import type { Router } from "../http/router";
import { validate } from "../http/validate";

const BashSearchQuery = PageQuery.extend({
  command_id__eq: z.string().optional(),
  kind__eq: z.enum([BashCommand.shape.kind.value, BashOutput.shape.kind.value]).optional(),
  sort_order: z.enum(["TIMESTAMP", "TIMESTAMP_DESC"]).default("TIMESTAMP"),
});

const BASE = "/api/bash";

/** `/api/bash`. */
export function bashRoutes(router: Router, ctx: AgentServerContext): void {
  router.post(`${BASE}/execute_bash_command`, async (req, res) => {
    const { done } = ctx.bash.start(validate(ExecuteBashRequest, req.body, "body"));
    sendJson(res, await done);
  });
  router.post(`${BASE}/start_bash_command`, (req, res) => {
    const { command, done } = ctx.bash.start(validate(ExecuteBashRequest, req.body, "body"));
    done.catch((error: unknown) =>
      ctx.logger.error("bash command failed", { error: String(error) }),
    );
    sendJson(res, command);
  });
  router.get(`${BASE}/bash_events/search`, (req, res) => {
    const query = validate(BashSearchQuery, firstValues(req.query), "query");
    const events = ctx.bash.list();
    const ordered = query.sort_order === "TIMESTAMP" ? events : [...events].reverse();
    sendJson(
      res,
      paginate(ordered, query, (event) => {
        if (query.kind__eq !== undefined && event.kind !== query.kind__eq) return false;
        if (query.command_id__eq === undefined) return true;
        return (
          (event.kind === "BashCommand" ? event.id : event.command_id) === query.command_id__eq
        );
      }),
    );
  });
}

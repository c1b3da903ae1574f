import { SendMessageRequest } from "@sandbox-server/agent-contracts";
import type { AgentServerContext } from "../context";
import { conversationFromPath } from "../conversations/find-conversation";
import { notFound } from "../errors";
import { sendJson } from "../http/respond";
import type { Router } from "../http/router";
import { validate } from "../http/validate";
import { countEvents, searchEvents } from "./search-events";
import { sendMessage } from "./send-message";

const BASE = "/api/conversations/:conversation_id/events";

/** `/api/conversations/:conversation_id/events`. */
export function eventRoutes(router: Router, ctx: AgentServerContext): void {
  const conversationOf = (params: Record<string, string>) =>
    conversationFromPath(ctx, params.conversation_id);

  router.post(BASE, (req, res) => {
    const conversation = conversationOf(req.params);
    sendMessage(ctx, conversation, validate(SendMessageRequest, req.body, "body"), false);
    sendJson(res, { success: true });
  });
  router.get(`${BASE}/search`, (req, res) => {
    sendJson(res, searchEvents(conversationOf(req.params), req.query));
  });
  router.get(`${BASE}/count`, (req, res) => {
    sendJson(res, countEvents(conversationOf(req.params), req.query));
  });
  router.get(`${BASE}/:event_id`, (req, res) => {
    const event = conversationOf(req.params).findEvent(req.params.event_id ?? "");
    if (!event) throw notFound("Event");
    sendJson(res, event);
  });
}

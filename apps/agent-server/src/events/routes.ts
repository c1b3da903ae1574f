import { SendMessageRequest } from "@sandbox-server/agent-contracts";
import { Router } from "express";
import { type AgentServerContext, conversationFromPath } from "../context";
import { notFound } from "../errors";
import { validate } from "../http/validate";
import { countEvents, searchEvents } from "./search-events";
import { sendMessage } from "./send-message";

/** `/api/conversations/:conversation_id/events`. */
export function eventRoutes(ctx: AgentServerContext): Router {
  const router = Router({ mergeParams: true });
  const conversationOf = (params: Record<string, string>) =>
    conversationFromPath(ctx, params.conversation_id);

  router.post("/", (req, res) => {
    const conversation = conversationOf(req.params);
    sendMessage(ctx, conversation, validate(SendMessageRequest, req.body, "body"), false);
    res.json({ success: true });
  });
  router.get("/search", (req, res) => {
    res.json(searchEvents(conversationOf(req.params), req.query));
  });
  router.get("/count", (req, res) => {
    res.json(countEvents(conversationOf(req.params), req.query));
  });
  router.get("/:event_id", (req, res) => {
    const event = conversationOf(req.params).findEvent(req.params.event_id);
    if (!event) throw notFound("Event");
    res.json(event);
  });
  return router;
}

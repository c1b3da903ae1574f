import {
  CreateConversationRequest,
  UpdateConversationRequest,
} from "@sandbox-server/agent-contracts";
import { Router } from "express";
import { type AgentServerContext, conversationFromPath } from "../context";
import { validate } from "../http/validate";
import { toPublicInfo } from "./conversation-view";
import { createConversation } from "./create-conversation";
import { deleteConversation } from "./delete-conversation";
import { countConversations, getConversations, searchConversations } from "./search-conversations";
import { updateConversation } from "./update-conversation";

/** `/api/conversations`: validates, calls a verb, answers. */
export function conversationRoutes(ctx: AgentServerContext): Router {
  const router = Router();
  const fromPath = (params: Record<string, string>) =>
    conversationFromPath(ctx, params.conversation_id);

  router.post("/", (req, res) => {
    const request = validate(CreateConversationRequest, req.body, "body");
    const { conversation, created } = createConversation(ctx, request);
    res.status(created ? 201 : 200).json(toPublicInfo(conversation.info));
  });
  router.get("/search", (req, res) => {
    res.json(searchConversations(ctx, req.query));
  });
  router.get("/count", (req, res) => {
    res.json(countConversations(ctx, req.query));
  });
  router.get("/", (req, res) => {
    res.json(getConversations(ctx, req.query));
  });
  router.get("/:conversation_id", (req, res) => {
    res.json(toPublicInfo(fromPath(req.params).info));
  });
  router.patch("/:conversation_id", (req, res) => {
    const conversation = fromPath(req.params);
    updateConversation(conversation, validate(UpdateConversationRequest, req.body, "body"));
    res.json({ success: true });
  });
  router.delete("/:conversation_id", async (req, res) => {
    await deleteConversation(ctx, fromPath(req.params));
    res.json({ success: true });
  });
  router.post("/:conversation_id/run", (req, res) => {
    ctx.runner.start(fromPath(req.params));
    res.json({ success: true });
  });
  router.post("/:conversation_id/pause", (req, res) => {
    ctx.runner.pause(fromPath(req.params));
    res.json({ success: true });
  });
  return router;
}

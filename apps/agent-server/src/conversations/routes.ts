import {
  CreateConversationRequest,
  UpdateConversationRequest,
} from "@sandbox-server/agent-contracts";
import type { AgentServerContext } from "../context";
import { sendJson } from "../http/respond";
import type { Router } from "../http/router";
import { validate } from "../http/validate";
import { toPublicInfo } from "./conversation-view";
import { createConversation } from "./create-conversation";
import { deleteConversation } from "./delete-conversation";
import { conversationFromPath } from "./find-conversation";
import { countConversations, getConversations, searchConversations } from "./search-conversations";
import { updateConversation } from "./update-conversation";

const BASE = "/api/conversations";

/** `/api/conversations`: validates, calls a verb, answers. */
export function conversationRoutes(router: Router, ctx: AgentServerContext): void {
  const fromPath = (params: Record<string, string>) =>
    conversationFromPath(ctx, params.conversation_id);

  router.post(BASE, (req, res) => {
    const request = validate(CreateConversationRequest, req.body, "body");
    const { conversation, created } = createConversation(ctx, request);
    sendJson(res, toPublicInfo(conversation.info), created ? 201 : 200);
  });
  router.get(`${BASE}/search`, (req, res) => {
    sendJson(res, searchConversations(ctx, req.query));
  });
  router.get(`${BASE}/count`, (req, res) => {
    sendJson(res, countConversations(ctx, req.query));
  });
  router.get(BASE, (req, res) => {
    sendJson(res, getConversations(ctx, req.query));
  });
  router.get(`${BASE}/:conversation_id`, (req, res) => {
    sendJson(res, toPublicInfo(fromPath(req.params).info));
  });
  router.patch(`${BASE}/:conversation_id`, (req, res) => {
    const conversation = fromPath(req.params);
    updateConversation(conversation, validate(UpdateConversationRequest, req.body, "body"));
    sendJson(res, { success: true });
  });
  router.delete(`${BASE}/:conversation_id`, async (req, res) => {
    await deleteConversation(ctx, fromPath(req.params));
    sendJson(res, { success: true });
  });
  router.post(`${BASE}/:conversation_id/run`, (req, res) => {
    ctx.runner.start(fromPath(req.params));
    sendJson(res, { success: true });
  });
  router.post(`${BASE}/:conversation_id/pause`, (req, res) => {
    ctx.runner.pause(fromPath(req.params));
    sendJson(res, { success: true });
  });
}

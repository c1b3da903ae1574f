import {
  type AgentEvent,
  SendMessageRequest,
  type ServerErrorEvent,
  SocketAuthFrame,
} from "@sandbox-server/agent-contracts";
import type { WebSocket } from "ws";
import { type AgentServerContext, markActive } from "../context";
import { AppError } from "../errors";
import { sendMessage } from "../events/send-message";
import { toIssues } from "../http/validate";
import { eventFrame } from "./frame-cap";
import { fullStateEvent, pastEvents, type ResendRequest } from "./resend";

export const CLOSE_UNAUTHORIZED = 4001;
export const CLOSE_NOT_FOUND = 4004;
const CLOSE_POLICY = 1008;
const CLOSE_TRY_AGAIN_LATER = 1013;
const AUTH_FRAME_TIMEOUT_MS = 10_000;
/** A client this far behind is dropped rather than buffered without end. */
const MAX_BUFFERED_BYTES = 64 * 1024 * 1024;

export interface SocketRequest {
  conversationId: string;
  /** From the query or the header; undefined when neither was given. */
  sessionKey: string | undefined;
  resend: ResendRequest | { error: string };
}

/**
 * One client of `/sockets/events/{id}`: authenticate (query, header or first frame), send the
 * full state, the past events asked for, then live events; take user messages in.
 */
export function serveEventSocket(ws: WebSocket, ctx: AgentServerContext, request: SocketRequest) {
  if (request.sessionKey !== undefined || !ctx.keys.required) {
    if (ctx.keys.accepts(request.sessionKey)) start(ws, ctx, request);
    else ws.close(CLOSE_UNAUTHORIZED, "Unauthorized");
    return;
  }
  const timer = setTimeout(
    () => ws.close(CLOSE_UNAUTHORIZED, "Unauthorized"),
    AUTH_FRAME_TIMEOUT_MS,
  );
  ws.once("message", (data) => {
    clearTimeout(timer);
    const frame = SocketAuthFrame.safeParse(parseJson(data));
    if (frame.success && ctx.keys.accepts(frame.data.session_api_key)) start(ws, ctx, request);
    else ws.close(CLOSE_UNAUTHORIZED, "Unauthorized");
  });
  ws.once("close", () => clearTimeout(timer));
}

function start(ws: WebSocket, ctx: AgentServerContext, request: SocketRequest): void {
  const conversation = ctx.store.get(request.conversationId);
  if (!conversation) {
    ws.close(CLOSE_NOT_FOUND, "Conversation not found");
    return;
  }
  if ("error" in request.resend) {
    sendError(ws, "VALIDATION_FAILED", request.resend.error);
    ws.close(CLOSE_POLICY, "Invalid resend parameters");
    return;
  }
  const send = (event: AgentEvent | ServerErrorEvent, json?: string) => {
    if (ws.readyState !== ws.OPEN) return;
    if (ws.bufferedAmount > MAX_BUFFERED_BYTES) {
      ws.close(CLOSE_TRY_AGAIN_LATER, "Client too slow");
      return;
    }
    ws.send(eventFrame(event, json));
  };
  // Snapshot and subscription happen in one synchronous step: no event is missed or doubled.
  send(fullStateEvent(conversation));
  for (const event of pastEvents(conversation, request.resend)) send(event);
  const unsubscribe = conversation.subscribe({
    onEvent: send,
    onRemoved: () => ws.close(CLOSE_NOT_FOUND, "Conversation deleted"),
  });
  ws.on("close", unsubscribe);

  ws.on("message", (data) => {
    markActive(ctx.state);
    const frame = parseJson(data);
    if (frame === undefined) return sendError(ws, "INVALID_JSON", "Frame is not valid JSON");
    // A client may authenticate by frame even when it did not need to; that is not a message.
    if (SocketAuthFrame.safeParse(frame).success) return;
    const message = SendMessageRequest.safeParse(frame);
    if (!message.success) {
      return sendError(ws, "VALIDATION_FAILED", toIssues(message.error, "body"));
    }
    try {
      sendMessage(ctx, conversation, message.data, true);
    } catch (error) {
      if (error instanceof AppError) return sendError(ws, error.code, error.detail);
      ctx.logger.error("socket message failed", { conversation_id: conversation.id });
      sendError(ws, "INTERNAL_ERROR", "The message could not be handled");
    }
  });
}

function sendError(ws: WebSocket, code: string, detail: unknown): void {
  if (ws.readyState !== ws.OPEN) return;
  const frame: ServerErrorEvent = { kind: "ServerErrorEvent", code, detail };
  ws.send(JSON.stringify(frame));
}

function parseJson(data: WebSocket.RawData): unknown {
  try {
    const bytes = Array.isArray(data)
      ? Buffer.concat(data)
      : data instanceof ArrayBuffer
        ? Buffer.from(data)
        : data;
    return JSON.parse(bytes.toString("utf8"));
  } catch {
    return undefined;
  }
}

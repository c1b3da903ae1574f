import type { WebhookDeliveryRow, WebhookRow } from "@sandbox-server/db";
import { z } from "zod";
import { ConversationId } from "../conversations/contracts";
import { pageInput, pageOf, Timestamp } from "../shared/contracts";
import { iso, isoOrNull } from "../shared/time";
import { failureCategories, storedCategory } from "./delivery/failure-category";
import { redactUrl } from "./service/url-credentials";

/** Kinds a webhook can ask for: the agent server's event kinds and sandbox lifecycle events. */
export const webhookEventKinds = [
  "MessageEvent",
  "ActionEvent",
  "ObservationEvent",
  "ConversationStateUpdateEvent",
  "AgentErrorEvent",
  "ConversationErrorEvent",
  "sandbox.status_changed",
  "sandbox.deleted",
  "sandbox.egress_denied",
] as const;
export const WebhookEventKind = z.enum(webhookEventKinds).meta({ id: "WebhookEventKind" });

export const WebhookUrl = z
  .url({ protocol: /^https?$/, error: "url must be an http or https URL" })
  .max(2048);

const SECRET_FORMAT =
  "secret must be whsec_ followed by the standard base64 (with padding) of 24 to 64 random bytes, as Standard Webhooks libraries expect";

/** `whsec_<base64>` whose key is 24..64 bytes; `standardwebhooks` libraries decode it strictly. */
export const WebhookSecret = z
  .string()
  .max(256)
  .refine((secret) => {
    const match = /^whsec_((?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?)$/.exec(
      secret,
    );
    const bytes = match?.[1] ? Buffer.from(match[1], "base64").length : 0;
    return bytes >= 24 && bytes <= 64;
  }, SECRET_FORMAT);

export const WebhookId = z.string().min(1).max(64).describe("Webhook id");

export const CreateWebhookInput = z.object({
  url: WebhookUrl,
  events: z
    .array(WebhookEventKind)
    .min(1)
    .max(webhookEventKinds.length)
    .optional()
    .describe("Deliver only these kinds; every kind when absent"),
  conversation_id: ConversationId.optional().describe(
    "Deliver only this conversation's events and its sandbox's lifecycle events",
  ),
  secret: WebhookSecret.optional().describe(
    "Standard Webhooks secret: `whsec_` + standard base64 of 24..64 random bytes (the HMAC-SHA256 key); generated when absent",
  ),
});
export type CreateWebhookInput = z.infer<typeof CreateWebhookInput>;

export const Webhook = z
  .object({
    id: z.string(),
    url: z.string().describe("The URL; a password in it is shown as ***"),
    events: z.array(z.string()).nullable().describe("null: every kind"),
    conversation_id: z.string().nullable(),
    created_at: Timestamp,
  })
  .meta({ id: "Webhook" });
export type Webhook = z.infer<typeof Webhook>;

export const CreatedWebhook = Webhook.extend({
  secret: z
    .string()
    .describe("Shown once: verify each delivery's webhook-signature with it (Standard Webhooks)"),
}).meta({ id: "CreatedWebhook" });

export const WebhookPage = pageOf(Webhook, "WebhookPage");

export const ListWebhooksInput = z.object({ ...pageInput });
export const WebhookIdInput = z.object({ id: WebhookId });
export const DeleteWebhookOutput = z.object({ success: z.boolean(), id: z.string() });

export const deliveryStatuses = ["pending", "succeeded", "failed"] as const;
export const DeliveryStatus = z.enum(deliveryStatuses).meta({ id: "WebhookDeliveryStatus" });

export const WebhookDelivery = z
  .object({
    id: z.string().describe("Also sent as webhook-id; the same on every attempt"),
    webhook_id: z.string(),
    event_id: z.string(),
    kind: z.string(),
    status: DeliveryStatus,
    attempts: z.number().int(),
    last_status_code: z.number().int().nullable(),
    last_error: z
      .enum(failureCategories)
      .nullable()
      .describe("Why the last attempt failed, as a category; the status code is last_status_code"),
    next_attempt_at: Timestamp.nullable().describe(
      "When the next attempt is due; null unless pending",
    ),
    created_at: Timestamp,
    completed_at: Timestamp.nullable(),
  })
  .meta({ id: "WebhookDelivery" });
export type WebhookDelivery = z.infer<typeof WebhookDelivery>;

export const WebhookDeliveryPage = pageOf(WebhookDelivery, "WebhookDeliveryPage");

export const ListDeliveriesInput = z.object({
  id: WebhookId,
  ...pageInput,
  status: DeliveryStatus.optional(),
});
export type ListDeliveriesInput = z.infer<typeof ListDeliveriesInput>;

/** The JSON body of every delivery. */
export interface WebhookPayload {
  event_id: string;
  kind: string;
  occurred_at: string;
  sandbox_id: string | null;
  conversation_id: string | null;
  /** The agent server's event as sent, or the lifecycle event's fields. */
  data: Record<string, unknown>;
}

export function toWebhook(row: WebhookRow): Webhook {
  return {
    id: row.id,
    url: redactUrl(row.url),
    events: row.events,
    conversation_id: row.conversationId,
    created_at: iso(row.createdAt),
  };
}

export function toWebhookDelivery(row: WebhookDeliveryRow): WebhookDelivery {
  return {
    id: row.id,
    webhook_id: row.webhookId,
    event_id: row.eventId,
    kind: row.eventKind,
    status: row.status as WebhookDelivery["status"],
    attempts: row.attempts,
    last_status_code: row.lastStatusCode,
    last_error: storedCategory(row.lastError, row.lastStatusCode),
    next_attempt_at: row.status === "pending" ? iso(row.nextAttemptAt) : null,
    created_at: iso(row.createdAt),
    completed_at: isoOrNull(row.completedAt),
  };
}

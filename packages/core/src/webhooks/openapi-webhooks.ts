import type { OpenAPIObject } from "trpc-to-openapi";
import { webhookEventKinds } from "./contracts";

type PathItem = NonNullable<OpenAPIObject["webhooks"]>[string];
type SchemaObject = NonNullable<NonNullable<OpenAPIObject["components"]>["schemas"]>[string];

const lifecycleData: Record<string, SchemaObject> = {
  "sandbox.status_changed": {
    type: "object",
    required: ["sandbox_id", "status", "previous_status", "status_detail"],
    properties: {
      sandbox_id: { type: "string" },
      status: { $ref: "#/components/schemas/SandboxStatus" },
      previous_status: {
        anyOf: [{ $ref: "#/components/schemas/SandboxStatus" }, { type: "null" }],
      },
      status_detail: { type: ["string", "null"] },
    },
  },
  "sandbox.deleted": {
    type: "object",
    required: ["sandbox_id"],
    properties: { sandbox_id: { type: "string" } },
  },
  "sandbox.egress_denied": {
    type: "object",
    description:
      "A connection the sandbox's egress policy refused. At most one event per destination per minute; `denied` counts the refusals since the previous event for it.",
    required: ["sandbox_id", "destination", "rule", "denied", "first_denied_at"],
    properties: {
      sandbox_id: { type: "string" },
      destination: {
        type: "string",
        description: "`host:port` or `address:port` (IPv6 in brackets), as the sandbox asked",
      },
      rule: {
        type: "string",
        description:
          "What refused it: `metadata`, `deny_out <entry>`, `allow_internet false`, `private range (<class>)`",
      },
      denied: { type: "integer", minimum: 1 },
      first_denied_at: { type: "string", format: "date-time" },
    },
  },
};

const headers = [
  {
    name: "webhook-id",
    description: "The delivery's id, the same on every attempt: dedupe on it",
    schema: { type: "string" as const },
  },
  {
    name: "webhook-timestamp",
    description: "Unix seconds when this attempt was signed",
    schema: { type: "string" as const, pattern: "^[0-9]+$" },
  },
  {
    name: "webhook-signature",
    description:
      "`v1,` + base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{raw body}` under the key the webhook's `whsec_` secret encodes",
    schema: { type: "string" as const, pattern: "^v1,[A-Za-z0-9+/]+={0,2}$" },
  },
].map((header) => ({ ...header, in: "header" as const, required: true }));

function payloadSchema(kind: string, data: SchemaObject): SchemaObject {
  const lifecycle = kind in lifecycleData;
  return {
    type: "object",
    required: ["event_id", "kind", "occurred_at", "sandbox_id", "conversation_id", "data"],
    properties: {
      event_id: {
        type: "string",
        description: lifecycle ? "Generated for this occurrence" : "The agent server's event id",
      },
      kind: { type: "string", const: kind },
      occurred_at: { type: "string", format: "date-time" },
      sandbox_id: { type: ["string", "null"] },
      conversation_id: lifecycle ? { type: "null" } : { type: "string", format: "uuid" },
      data,
    },
  };
}

/**
 * The OpenAPI 3.1 `webhooks` section: one entry per event kind a webhook can ask for, each with
 * its payload schema and the Standard Webhooks headers. `agentEvent` is the schema of an agent
 * server's event (a `$ref` where the document has one).
 */
export function webhookDocs(agentEvent: SchemaObject): Record<string, PathItem> {
  return Object.fromEntries(
    webhookEventKinds.map((kind) => {
      const data = lifecycleData[kind] ?? {
        ...agentEvent,
        description: `The agent server's ${kind} as sent`,
      };
      const item: PathItem = {
        post: {
          operationId: `webhook_${kind.replace(/\W/g, "_")}`,
          summary: `${kind} delivered to a registered webhook`,
          description:
            "Sent in the Standard Webhooks format (https://www.standardwebhooks.com): verify with any `standardwebhooks` library and the webhook's secret. At-least-once; retried with backoff until a 2xx answer.",
          tags: ["Webhooks"],
          parameters: headers,
          requestBody: {
            required: true,
            content: { "application/json": { schema: payloadSchema(kind, data) } },
          },
          responses: {
            "2XX": { description: "Received; any other answer (or none) is retried" },
          },
        },
      };
      return [kind, item];
    }),
  );
}

import type { AnyTRPCProcedure } from "@trpc/server";
import { generateOpenApiDocument, type OpenAPIObject } from "trpc-to-openapi";
import { type ErrorCode, errorCodes, HttpStatus, isErrorStatus } from "./errors";
import { documentIdempotencyKey } from "./idempotency/openapi";
import { appRouter } from "./router";
import { API_PREFIX, DEFAULT_BODY_LIMIT_BYTES } from "./shared/rest";
import type { Meta } from "./trpc";
import { webhookDocs } from "./webhooks/openapi-webhooks";

type SchemaObject = NonNullable<NonNullable<OpenAPIObject["components"]>["schemas"]>[string];

const ErrorBody: SchemaObject = {
  type: "object",
  required: ["code", "message", "detail"],
  properties: {
    code: { type: "string", description: "Stable machine-readable code, e.g. SANDBOX_NOT_RUNNING" },
    message: { type: "string" },
    detail: {
      type: "string",
      description:
        "The message as one string, validation issues (`path: message`) after it; what OpenHands clients show",
    },
    issues: {
      type: "array",
      items: {
        type: "object",
        properties: {
          path: { type: "array", items: { anyOf: [{ type: "string" }, { type: "number" }] } },
          message: { type: "string" },
          code: { type: "string" },
        },
      },
    },
    details: { type: "object" },
  },
};

/** How an error response of each status is described, by the code that stands for it. */
const responseText: [ErrorCode, string][] = [
  ["UNAUTHORIZED", "Missing or invalid API key"],
  ["FORBIDDEN", "Not allowed"],
  ["NOT_FOUND", "Not found"],
  ["INVALID_SANDBOX_STATE", "Conflict with the sandbox's current status"],
  ["CONVERSATION_ARCHIVED", "Gone: the conversation is archived"],
  ["PAYLOAD_TOO_LARGE", "Request body too large"],
  ["UNSUPPORTED_MEDIA_TYPE", "Request body is not uncompressed JSON"],
  ["VALIDATION_FAILED", "Validation error"],
  ["SANDBOX_LIMIT_REACHED", "Sandbox limit reached"],
  ["EGRESS_POLICY_NOT_LIVE", "Not possible with this server's runtime"],
  ["SANDBOX_UNAVAILABLE", "Sandbox or agent server unavailable"],
];
const statusText = new Map(
  responseText.map(([code, text]) => [String(errorCodes[code].status), text]),
);

/** Every tag an operation may carry, with what it groups; the document defines each one used. */
const tagDescriptions: Record<string, string> = {
  Sandboxes:
    "Isolated environments, each running an agent server: start, read, search, pause, resume, delete",
  "Sandbox specs": "Templates a sandbox is started from (image or command, limits, environment)",
  "App conversations":
    "Conversations with an agent inside a sandbox: create, read, search, rename, delete, and send-message, the thin proxy to the agent server",
  Events: "The events of a conversation as the control plane stored them while following it",
  Webhooks:
    "User-registered endpoints that receive a conversation's events and sandbox lifecycle events (see `webhooks`)",
  Users: "Users and their API keys (creating and managing other users is for admins)",
  Settings: "OpenHands-compatible settings and web-client configuration",
};

/** Where the control plane listens unless HOST and PORT say otherwise (`npm start`). */
const defaultServer = {
  url: "http://{host}:{port}",
  description: "A control plane started with `npm start`: HOST and PORT, default 127.0.0.1:3000",
  variables: {
    host: { default: "127.0.0.1", description: "HOST" },
    port: { default: "3000", description: "PORT" },
  },
};

const SESSION_KEY_HEADER = "x-session-api-key";

/**
 * zod writes `Number.MIN_SAFE_INTEGER`/`MAX_SAFE_INTEGER` as the bounds of every `.int()`; they say
 * nothing `type: integer` does not, and documentation tools turn them into examples such as
 * `"port": -9007199254740991`. Removed everywhere, in place.
 */
function dropSafeIntegerBounds(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) dropSafeIntegerBounds(item);
    return;
  }
  if (!node || typeof node !== "object") return;
  const record = node as Record<string, unknown>;
  if (record.minimum === Number.MIN_SAFE_INTEGER) delete record.minimum;
  if (record.maximum === Number.MAX_SAFE_INTEGER) delete record.maximum;
  for (const value of Object.values(record)) dropSafeIntegerBounds(value);
}

/** Procedure path (e.g. `sandboxes.start`) → its meta, for statuses and documentation. */
export function procedureMetas(): Map<string, Meta> {
  const procedures = appRouter._def.procedures as unknown as Record<string, AnyTRPCProcedure>;
  return new Map(
    Object.entries(procedures).map(([path, procedure]) => [
      path,
      (procedure._def.meta ?? {}) as Meta,
    ]),
  );
}

const MIB = 1024 * 1024;

function sizeText(bytes: number): string {
  return bytes % MIB === 0 ? `${bytes / MIB} MiB` : `${bytes} bytes`;
}

export interface OpenApiDocumentOptions {
  /** The server's request body limit, stated in the description. */
  bodyLimitBytes?: number;
}

/** The OpenAPI 3.1 document of the REST surface, with true success codes and our error body. */
export function createOpenApiDocument(
  baseUrl: string,
  options: OpenApiDocumentOptions = {},
): OpenAPIObject {
  const bodyLimit = sizeText(options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES);
  const doc = generateOpenApiDocument(appRouter, {
    title: "Sandbox Server API",
    version: "1.0.0",
    description:
      "Control plane for agent sandboxes. Authenticate with `Authorization: Bearer <key>`. " +
      `Request bodies are JSON (\`application/json\`, UTF-8, not compressed) of at most ${bodyLimit}; ` +
      "a larger body is refused with 413 `PAYLOAD_TOO_LARGE`, any other type or a " +
      "`Content-Encoding` with 415 `UNSUPPORTED_MEDIA_TYPE`.",
    baseUrl: baseUrl || defaultServer.url,
    securitySchemes: {
      Authorization: { type: "http", scheme: "bearer" },
      ApiKeyHeader: { type: "apiKey", in: "header", name: "X-API-Key" },
      SessionApiKey: {
        type: "apiKey",
        in: "header",
        name: "X-Session-API-Key",
        description: "A sandbox's own session key (only where an operation says so)",
      },
    },
  });
  // Without a base URL (how the server serves it): the server that answered, relative, first (so
  // /docs works on any port), then where `npm start` listens, host and port as variables.
  if (!baseUrl) {
    doc.servers = [
      { url: "/", description: "The control plane that served this document" },
      defaultServer,
    ];
  }
  doc.info.license = { name: "MIT", identifier: "MIT" };
  // Who answers for the API: the project, named; no address or homepage is invented for it.
  doc.info.contact = { name: "Sandbox Server maintainers" };
  const successByOperation = new Map<string, number>();
  const bodyQueryByOperation = new Map<string, string[]>();
  for (const meta of procedureMetas().values()) {
    if (meta.openapi?.operationId && meta.successStatus) {
      successByOperation.set(meta.openapi.operationId, meta.successStatus);
    }
    if (meta.openapi?.operationId && meta.bodyQuery) {
      bodyQueryByOperation.set(meta.openapi.operationId, meta.bodyQuery);
    }
  }
  // trpc-to-openapi adds its own error shapes (`error.NOT_FOUND`, ...); every error response below
  // uses ours instead, so they would only mislead.
  const schemas = Object.entries(doc.components?.schemas ?? {}).filter(
    ([name]) => !name.startsWith("error."),
  );
  doc.components = {
    ...doc.components,
    schemas: { ...Object.fromEntries(schemas), Error: ErrorBody },
  };
  for (const item of Object.values(doc.paths ?? {})) {
    for (const method of ["get", "post", "put", "patch", "delete"] as const) {
      const operation = item?.[method];
      if (!operation?.responses) continue;
      // An operation authenticated by a sandbox's session key declares the header as a request
      // header (rest()'s `sessionKey`); it is that operation's security, not a parameter. Other
      // unprotected operations are public, which the document states explicitly.
      const parameters = operation.parameters ?? [];
      const sessionKey = parameters.some(
        (p) => "in" in p && p.in === "header" && p.name.toLowerCase() === SESSION_KEY_HEADER,
      );
      if (sessionKey) {
        operation.parameters = parameters.filter(
          (p) => !("in" in p && p.in === "header" && p.name.toLowerCase() === SESSION_KEY_HEADER),
        );
        operation.security = [{ SessionApiKey: [] }];
      } else if (!operation.security) {
        operation.security = [];
      }
      const bodyQuery = operation.operationId && bodyQueryByOperation.get(operation.operationId);
      if (bodyQuery) {
        operation.parameters = [
          ...(operation.parameters ?? []),
          ...bodyQuery.map((name) => ({
            name,
            in: "query" as const,
            required: false,
            schema: { type: "string" as const },
            description: `Also accepted in the body; both given must agree`,
          })),
        ];
      }
      const success = operation.operationId && successByOperation.get(operation.operationId);
      const ok = String(HttpStatus.OK);
      if (success && operation.responses[ok]) {
        operation.responses[String(success)] = operation.responses[ok];
        delete operation.responses[ok];
      }
      if (success === HttpStatus.CREATED) documentIdempotencyKey(operation);
      for (const status of Object.keys(operation.responses)) {
        if (!isErrorStatus(Number(status))) continue;
        operation.responses[status] = {
          description: statusText.get(status) ?? "Error",
          content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
        };
      }
    }
  }
  // Procedures declare paths relative to the /api/v1 mount; the document shows them in full.
  doc.paths = Object.fromEntries(
    Object.entries(doc.paths ?? {}).map(([path, item]) => [`${API_PREFIX}${path}`, item]),
  );
  const agentEvent = doc.components.schemas?.ConversationEvent
    ? { $ref: "#/components/schemas/ConversationEvent" }
    : { type: "object" as const };
  doc.webhooks = webhookDocs(agentEvent);
  // Deliveries carry a signature, not a credential of ours.
  for (const item of Object.values(doc.webhooks)) {
    if (item && "post" in item && item.post && !item.post.security) item.post.security = [];
  }
  doc.tags = usedTags(doc).map((name) => {
    const description = tagDescriptions[name];
    if (!description) throw new Error(`OpenAPI tag "${name}" has no description in openapi.ts`);
    return { name, description };
  });
  dropSafeIntegerBounds(doc);
  return doc;
}

/** The tags the operations use, in order of first use. */
function usedTags(doc: OpenAPIObject): string[] {
  const tags = new Set<string>();
  for (const item of Object.values(doc.paths ?? {})) {
    for (const method of ["get", "post", "put", "patch", "delete"] as const) {
      for (const tag of item?.[method]?.tags ?? []) tags.add(tag);
    }
  }
  return [...tags];
}

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
  ["SANDBOX_UNAVAILABLE", "Sandbox or agent server unavailable"],
];
const statusText = new Map(
  responseText.map(([code, text]) => [String(errorCodes[code].status), text]),
);

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
    baseUrl: baseUrl || "/",
    securitySchemes: {
      Authorization: { type: "http", scheme: "bearer" },
      ApiKeyHeader: { type: "apiKey", in: "header", name: "X-API-Key" },
    },
  });
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
  return doc;
}

import type { AnyTRPCProcedure } from "@trpc/server";
import { generateOpenApiDocument, type OpenAPIObject } from "trpc-to-openapi";
import { appRouter } from "./router";
import { API_PREFIX } from "./shared/rest";
import type { Meta } from "./trpc";

type SchemaObject = NonNullable<NonNullable<OpenAPIObject["components"]>["schemas"]>[string];

const ErrorBody: SchemaObject = {
  type: "object",
  required: ["code", "message"],
  properties: {
    code: { type: "string", description: "Stable machine-readable code, e.g. SANDBOX_NOT_RUNNING" },
    message: { type: "string" },
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

const statusText: Record<string, string> = {
  "401": "Missing or invalid API key",
  "403": "Not allowed",
  "404": "Not found",
  "409": "Conflict with the sandbox's current status",
  "410": "Gone: the conversation is archived",
  "413": "Request body too large",
  "422": "Validation error",
  "429": "Sandbox limit reached",
  "503": "Sandbox or agent server unavailable",
};

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

/** The OpenAPI 3.1 document of the REST surface, with true success codes and our error body. */
export function createOpenApiDocument(baseUrl: string): OpenAPIObject {
  const doc = generateOpenApiDocument(appRouter, {
    title: "Sandbox Server API",
    version: "1.0.0",
    description:
      "Control plane for agent sandboxes. Authenticate with `Authorization: Bearer <key>`.",
    baseUrl: baseUrl || "/",
    securitySchemes: {
      Authorization: { type: "http", scheme: "bearer" },
      ApiKeyHeader: { type: "apiKey", in: "header", name: "X-API-Key" },
    },
  });
  const successByOperation = new Map<string, number>();
  for (const meta of procedureMetas().values()) {
    if (meta.openapi?.operationId && meta.successStatus) {
      successByOperation.set(meta.openapi.operationId, meta.successStatus);
    }
  }
  doc.components = { ...doc.components, schemas: { ...doc.components?.schemas, Error: ErrorBody } };
  for (const item of Object.values(doc.paths ?? {})) {
    for (const method of ["get", "post", "put", "patch", "delete"] as const) {
      const operation = item?.[method];
      if (!operation?.responses) continue;
      const success = operation.operationId && successByOperation.get(operation.operationId);
      if (success && operation.responses["200"]) {
        operation.responses[String(success)] = operation.responses["200"];
        delete operation.responses["200"];
      }
      for (const status of Object.keys(operation.responses)) {
        if (Number(status) < 400) continue;
        operation.responses[status] = {
          description: statusText[status] ?? "Error",
          content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
        };
      }
    }
  }
  // Procedures declare paths relative to the /api/v1 mount; the document shows them in full.
  doc.paths = Object.fromEntries(
    Object.entries(doc.paths ?? {}).map(([path, item]) => [`${API_PREFIX}${path}`, item]),
  );
  return doc;
}

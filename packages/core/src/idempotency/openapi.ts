import type { OpenAPIObject } from "trpc-to-openapi";

type PathItem = NonNullable<NonNullable<OpenAPIObject["paths"]>[string]>;
type Operation = NonNullable<PathItem["post"]>;

/**
 * Documents `Idempotency-Key` on a create operation (201): the request header, the replay header
 * of the 201 answer, and the 409 and 422 the key can cause (their bodies are the common Error).
 */
export function documentIdempotencyKey(operation: Operation): void {
  operation.parameters = [
    ...(operation.parameters ?? []),
    {
      name: "Idempotency-Key",
      in: "header",
      required: false,
      schema: { type: "string", minLength: 1, maxLength: 255, pattern: "^[\\x20-\\x7E]+$" },
      description:
        "Makes the create safe to retry: within 24 h the same key (per user) with the same request " +
        "answers the first response again (`Idempotent-Replayed: true`) instead of creating again; " +
        "with a different request 422 `IDEMPOTENCY_KEY_REUSED`; while the first is still running " +
        "elsewhere 409 `IDEMPOTENCY_KEY_IN_PROGRESS` (retry). Failed creates are not kept.",
    },
  ];
  const responses = operation.responses ?? {};
  operation.responses = responses;
  const created = responses["201"];
  if (created && !("$ref" in created)) {
    created.headers = {
      ...created.headers,
      "Idempotent-Replayed": {
        description: "`true` when this answer is the replay of an earlier request's",
        schema: { type: "string", enum: ["true"] },
      },
    };
  }
  // Placeholders: the caller turns every error status into the common Error response.
  responses["409"] ??= { description: "Conflict" };
  responses["422"] ??= { description: "Validation failed" };
}

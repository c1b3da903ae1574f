import fc from "fast-check";
import {
  badUuid,
  invalidValue,
  type JsonSchema,
  type Resolve,
  validValue,
} from "./json-schema-arbitraries";

export interface Parameter {
  name: string;
  in: "path" | "query" | "header";
  schema: JsonSchema;
}

/** One REST operation of the OpenAPI document. */
export interface Operation {
  method: string;
  path: string;
  operationId: string;
  parameters: Parameter[];
  body: JsonSchema | null;
  /**
   * How the operation is authenticated, from its `security`: an API key, a sandbox's session
   * key (`SessionApiKey`: a request without that key is 401 before anything else is looked at),
   * or nobody (`security: []`, public).
   */
  auth: "apiKey" | "session" | "public";
}

/** One generated bad request and the statuses that are a correct answer to it. */
export interface BadRequest {
  category: string;
  method: string;
  /** Path and query, ready to append to the base URL. */
  url: string;
  body?: string | Uint8Array;
  contentType?: string;
  expect: number[];
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, OpenApiOperation>>;
  components?: { schemas?: Record<string, JsonSchema> };
}

interface OpenApiOperation {
  operationId: string;
  security?: Record<string, unknown>[];
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema: JsonSchema }> };
}

export function readOperations(doc: OpenApiDocument): {
  operations: Operation[];
  resolve: Resolve;
} {
  const schemas = doc.components?.schemas ?? {};
  const resolve: Resolve = (schema) => {
    let current = schema;
    for (let i = 0; current.$ref && i < 10; i++) {
      current = schemas[current.$ref.replace("#/components/schemas/", "")] ?? {};
    }
    return current;
  };
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      operations.push({
        method: method.toUpperCase(),
        path,
        operationId: op.operationId,
        parameters: (op.parameters ?? []).map(uuidLike),
        body: op.requestBody?.content?.["application/json"]?.schema ?? null,
        auth: authOf(op.security),
      });
    }
  }
  return { operations, resolve };
}

function authOf(security: Record<string, unknown>[] | undefined): Operation["auth"] {
  const schemes = (security ?? []).flatMap((requirement) => Object.keys(requirement));
  if (schemes.some((scheme) => scheme !== "SessionApiKey")) return "apiKey";
  return schemes.length > 0 ? "session" : "public";
}

/**
 * Ids that take "UUID, with or without dashes" (OpenHands' hex form too) are documented by their
 * description rather than `format: uuid`; they are UUIDs to the cases all the same.
 */
function uuidLike(p: Parameter): Parameter {
  if (p.schema.format || !/^UUID\b/.test(p.schema.description ?? "")) return p;
  return { ...p, schema: { ...p.schema, format: "uuid" } };
}

/** Values path parameters take when another part of the request is the bad one. */
export interface ValidIds {
  /** A UUID path parameter (a conversation of the caller's). */
  uuid: string;
  /** Any other path parameter (an id that does not exist). */
  other: string;
}

function renderPath(op: Operation, ids: ValidIds, override?: [string, string]): string {
  let path = op.path;
  for (const p of op.parameters.filter((x) => x.in === "path")) {
    // A numeric parameter (a port) gets a valid number, so that the case is decided by the other.
    const numeric = p.schema.type === "integer" || p.schema.type === "number";
    const value =
      override?.[0] === p.name
        ? override[1]
        : numeric
          ? String(p.schema.minimum ?? 1)
          : p.schema.format === "uuid"
            ? ids.uuid
            : ids.other;
    path = path.replace(`{${p.name}}`, encodeURIComponent(value));
  }
  return path;
}

const letters = fc.string({ minLength: 1, maxLength: 12, unit: fc.constantFrom(..."abcxyzQ_-") });

/** Query-string values (always strings) the parameter's schema rejects, even after coercion. */
function badQueryValue(schema: JsonSchema, resolve: Resolve): fc.Arbitrary<string> | null {
  const s = resolve(schema);
  if (s.enum) {
    return fc
      .oneof(letters, fc.constantFrom(...s.enum.map((v) => String(v).toLowerCase())))
      .filter((v) => !s.enum?.includes(v));
  }
  if (s.type === "integer" || s.type === "number") {
    const options = [letters, fc.constantFrom("1.5", "2.25", "1e9", "-0.5", "NaN", "[]", "{}")];
    if (s.minimum !== undefined) {
      options.push(fc.integer({ min: -1e6, max: s.minimum - 1 }).map(String));
    }
    if (s.maximum !== undefined) {
      options.push(fc.integer({ min: s.maximum + 1, max: 1e15 }).map(String));
    }
    return fc.oneof(...options);
  }
  if (s.type === "string" && s.maxLength !== undefined) {
    const max = s.maxLength;
    return fc.integer({ min: max + 1, max: max + 4000 }).map((n) => "q".repeat(n));
  }
  return null;
}

const badPageId = fc
  .string({ minLength: 1, maxLength: 200, unit: "grapheme" })
  .filter((v) => v.trim().length > 0);

const WRONG_CONTENT_TYPES = [
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=xyz",
  "application/xml",
  "application/octet-stream",
];

const notJson = fc
  .oneof(
    fc.string({ minLength: 1, maxLength: 80 }),
    fc.constantFrom("{", "[", '{"a":', "{'a':1}", "{a:1}", "[1,]", '{"a":1,}', "nul", "\u0000"),
  )
  .filter((text) => {
    if (text.trim() === "") return false;
    try {
      JSON.parse(text);
      return false;
    } catch {
      return true;
    }
  });

/**
 * Every kind of bad request the operation can receive: bad path ids, bad query values, duplicated
 * query parameters, bodies that break the schema, malformed JSON, and wrong content types.
 */
export function badRequests(
  op: Operation,
  resolve: Resolve,
  ids: ValidIds,
): fc.Arbitrary<BadRequest> {
  const cases: fc.Arbitrary<BadRequest>[] = [];
  const base = { method: op.method };
  const validBody = op.body ? JSON.stringify(validValue(op.body, resolve)) : undefined;
  const path = renderPath(op, ids);
  const withValidBody =
    validBody === undefined ? {} : { body: validBody, contentType: "application/json" };

  for (const p of op.parameters) {
    if (p.in === "path") {
      const s = resolve(p.schema);
      const bad =
        s.format === "uuid"
          ? badUuid.filter(
              (v) =>
                ![".", ".."].includes(v) &&
                // 32 hex digits are a UUID where ids are taken without dashes too.
                !(/without dashes/.test(s.description ?? "") && /^[0-9a-f]{32}$/i.test(v)),
            )
          : fc.integer({ min: (s.maxLength ?? 64) + 1, max: 3000 }).map((n) => "s".repeat(n));
      cases.push(
        bad.map((value) => ({
          ...base,
          ...withValidBody,
          category: `path ${p.name}`,
          url: renderPath(op, ids, [p.name, value]),
          expect: [422],
        })),
      );
      // A number has no "unknown" spelling: what is not one is bad input (above).
      if (s.format !== "uuid" && s.type !== "integer" && s.type !== "number") {
        const unknown = fc
          .string({ minLength: 1, maxLength: s.maxLength ?? 64, unit: "grapheme" })
          // The server takes the raw (still percent-encoded) path segment as the id.
          .filter(
            (v) => ![".", ".."].includes(v) && encodeURIComponent(v).length <= (s.maxLength ?? 64),
          );
        cases.push(
          unknown.map((value) => ({
            ...base,
            ...withValidBody,
            category: `unknown ${p.name}`,
            url: renderPath(op, ids, [p.name, value]),
            expect: [404],
          })),
        );
      }
    } else if (p.in === "query") {
      // Header parameters (Idempotency-Key) are not bad input of this kind.
      const bad = p.name === "page_id" ? badPageId : badQueryValue(p.schema, resolve);
      if (!bad) continue;
      // A page cursor is decoded after the resource it pages is found: an unknown one is 404.
      const unknownParent = op.parameters.some(
        (x) => x.in === "path" && x.schema.format !== "uuid",
      );
      cases.push(
        bad.map((value) => ({
          ...base,
          category: `query ${p.name}`,
          url: `${path}?${new URLSearchParams({ [p.name]: value })}`,
          expect: p.name === "page_id" && unknownParent ? [404, 422] : [422],
        })),
      );
      const valid = String(validValue(p.schema, resolve));
      cases.push(
        fc.constant({
          ...base,
          category: `duplicated ${p.name}`,
          url: `${path}?${p.name}=${encodeURIComponent(valid)}&${p.name}=${encodeURIComponent(valid)}`,
          expect: [422],
        }),
      );
    }
  }

  cases.push(
    notJson.map((text) => ({
      ...base,
      category: "malformed JSON",
      url: path,
      body: text,
      contentType: "application/json",
      expect: [422],
    })),
  );
  if (op.body) {
    const badBody = invalidValue(op.body, resolve);
    if (badBody) {
      cases.push(
        badBody.map((value) => ({
          ...base,
          category: "body",
          url: path,
          body: JSON.stringify(value),
          contentType: "application/json",
          expect: [422],
        })),
      );
    }
    cases.push(
      fc.constantFrom(...WRONG_CONTENT_TYPES).map((contentType) => ({
        ...base,
        category: `content type ${contentType}`,
        url: path,
        body: validBody,
        contentType,
        expect: [415],
      })),
      // A charset the JSON parser knows but the bytes are not in: undecodable, so malformed.
      fc.constant({
        ...base,
        category: "content type utf-16",
        url: path,
        body: validBody,
        contentType: "application/json; charset=utf-16",
        expect: [415, 422],
      }),
      fc.constant({
        ...base,
        category: "no content type",
        url: path,
        body: new TextEncoder().encode(validBody),
        expect: [415],
      }),
    );
  }
  const all = fc.oneof(...cases);
  // Without the session key such an operation needs, 401 comes first, whatever else is wrong.
  return op.auth === "session" ? all.map((c) => ({ ...c, expect: [...c.expect, 401] })) : all;
}

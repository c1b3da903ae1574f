import fc from "fast-check";

/** The subset of JSON Schema (as the OpenAPI document writes it) that the generators read. */
export interface JsonSchema {
  $ref?: string;
  description?: string;
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  additionalProperties?: JsonSchema | boolean;
  propertyNames?: JsonSchema;
  enum?: unknown[];
  const?: unknown;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  oneOf?: JsonSchema[];
  anyOf?: JsonSchema[];
  default?: unknown;
}

export type Resolve = (schema: JsonSchema) => JsonSchema;

const JSON_TYPES = ["string", "number", "integer", "boolean", "null", "array", "object"] as const;
type JsonType = (typeof JSON_TYPES)[number];

const VALID_UUID = "6f1c2b9e-3a4d-4e5f-8a7b-9c0d1e2f3a4b";

/** A JSON value of the given type. */
function valueOfType(type: JsonType): fc.Arbitrary<unknown> {
  switch (type) {
    case "string":
      return fc.string({ maxLength: 20 });
    case "number":
      return fc
        .double({ noNaN: true, noDefaultInfinity: true })
        .filter((n) => !Number.isInteger(n));
    case "integer":
      return fc.integer();
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    case "array":
      return fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 4 });
    case "object":
      return fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), {
        maxKeys: 4,
      });
  }
}

/** Which JSON types satisfy the schema at its top level; null when any does. */
function allowedTypes(schema: JsonSchema, resolve: Resolve): Set<JsonType> | null {
  const s = resolve(schema);
  const branches = s.oneOf ?? s.anyOf;
  if (branches) {
    const all = new Set<JsonType>();
    for (const branch of branches) {
      const types = allowedTypes(branch, resolve);
      if (types === null) return null;
      for (const t of types) all.add(t);
    }
    return all;
  }
  if (s.const !== undefined || s.enum) {
    const values = s.enum ?? [s.const];
    return new Set(values.map((v) => (v === null ? "null" : (typeof v as JsonType))));
  }
  if (s.type === undefined) return null;
  const types = new Set((Array.isArray(s.type) ? s.type : [s.type]) as JsonType[]);
  if (types.has("number")) types.add("integer");
  return types;
}

/** A minimal value the schema accepts (required fields only). */
export function validValue(schema: JsonSchema, resolve: Resolve): unknown {
  const s = resolve(schema);
  if (s.const !== undefined) return s.const;
  if (s.enum?.length) return s.enum[0];
  const branch = s.oneOf?.[0] ?? s.anyOf?.[0];
  if (branch) return validValue(branch, resolve);
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  switch (type) {
    case "string":
      if (s.format === "uuid") return VALID_UUID;
      if (s.format === "uri") return "http://127.0.0.1:9/";
      return "v".repeat(Math.max(1, s.minLength ?? 1));
    case "integer":
    case "number":
      return Math.min(s.maximum ?? 1, Math.max(s.minimum ?? 1, 1));
    case "boolean":
      return false;
    case "null":
      return null;
    case "array":
      return Array.from({ length: s.minItems ?? 0 }, () => validValue(s.items ?? {}, resolve));
    default: {
      const out: Record<string, unknown> = {};
      for (const name of s.required ?? []) {
        out[name] = validValue(s.properties?.[name] ?? {}, resolve);
      }
      return out;
    }
  }
}

const notIn = (values: unknown[]) =>
  fc
    .oneof(
      fc.string({ minLength: 1, maxLength: 30 }),
      fc.constantFrom(...values.filter((v) => typeof v === "string").map((v) => `${v} `)),
      fc.constantFrom(...values.filter((v) => typeof v === "string").map((v) => v.toLowerCase())),
      fc.constantFrom(...values.filter((v) => typeof v === "string").map((v) => v.toUpperCase())),
    )
    .filter((v) => !values.includes(v));

/** Strings that are not a UUID in the 8-4-4-4-12 hex form. */
export const badUuid: fc.Arbitrary<string> = fc.oneof(
  fc.string({ minLength: 1, maxLength: 40 }),
  fc.uuid().map((u) => u.replaceAll("-", "")),
  fc.uuid().map((u) => u.slice(0, -1)),
  fc.uuid().map((u) => `${u}0`),
  fc.uuid().map((u) => `{${u}}`),
  fc.uuid().map((u) => `g${u.slice(1)}`),
  fc.uuid().map((u) => u.replace("-", "_")),
  fc.constantFrom("00000000-0000-0000-0000-00000000000", "null", "undefined", "0", "-1"),
);

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (value: string) => UUID_RE.test(value);

/** Strings longer than `max` (sometimes by a lot). */
const tooLong = (max: number) =>
  fc
    .oneof(
      fc.integer({ min: max + 1, max: max + 64 }),
      fc.integer({ min: max + 65, max: max + 100_000 }),
    )
    .chain((n) => fc.constantFrom("x", "é", "😀", "\u0000", "<").map((c) => c.repeat(n)));

/**
 * Rule-breaking values of a schema whose top-level type is right. `taken` lists, per property,
 * the const values that select a sibling branch of a union (a changed discriminator must not
 * select another branch).
 */
function structural(
  s: JsonSchema,
  resolve: Resolve,
  taken: Map<string, unknown[]> = new Map(),
): fc.Arbitrary<unknown>[] {
  const out: fc.Arbitrary<unknown>[] = [];
  if (s.const !== undefined) out.push(notIn([s.const]));
  if (s.enum?.length) out.push(notIn(s.enum));
  const types = Array.isArray(s.type) ? s.type : s.type ? [s.type] : [];
  if (types.includes("string") && s.const === undefined && !s.enum) {
    if ((s.minLength ?? 0) >= 1) out.push(fc.constant(""));
    if (s.maxLength !== undefined) out.push(tooLong(s.maxLength));
    if (s.format === "uuid") out.push(badUuid);
    else if (s.pattern) {
      const re = new RegExp(s.pattern);
      out.push(fc.string({ minLength: 1, maxLength: 40 }).filter((v) => !re.test(v)));
    }
    if (s.format === "uri") out.push(fc.constantFrom("not a url", "http//x", "://", "127.0.0.1"));
  }
  if (types.includes("integer") || types.includes("number")) {
    // Bounds near the safe-integer limits (zod's int) leave no range: the first value past them.
    if (s.minimum !== undefined) {
      const max = s.minimum - 1;
      out.push(max > -1e9 ? fc.integer({ min: -1e9, max }) : fc.constant(max));
    }
    if (s.maximum !== undefined) {
      const min = s.maximum + 1;
      out.push(min < 1e12 ? fc.integer({ min, max: 1e12 }) : fc.constant(min));
    }
    if (types.includes("integer") && !types.includes("number")) {
      out.push(valueOfType("number"));
    }
  }
  if (types.includes("array")) {
    if ((s.minItems ?? 0) >= 1) out.push(fc.constant([]));
    const badItem = s.items ? invalidValue(s.items, resolve) : null;
    if (badItem) {
      const good = validValue(s.items ?? {}, resolve);
      out.push(
        fc
          .tuple(fc.nat({ max: 3 }), badItem)
          .map(([n, bad]) => [...Array.from({ length: n }, () => good), bad]),
      );
    }
  }
  if (types.includes("object")) out.push(...objectMutations(s, resolve, taken));
  return out;
}

function objectMutations(
  s: JsonSchema,
  resolve: Resolve,
  taken: Map<string, unknown[]>,
): fc.Arbitrary<unknown>[] {
  const out: fc.Arbitrary<unknown>[] = [];
  const base = validValue(s, resolve) as Record<string, unknown>;
  for (const name of s.required ?? []) {
    const { [name]: _dropped, ...rest } = base;
    out.push(fc.constant(rest));
  }
  for (const [name, property] of Object.entries(s.properties ?? {})) {
    const excluded = taken.get(name) ?? [];
    const bad = invalidValue(property, resolve)?.filter((v) => !excluded.includes(v));
    if (bad) out.push(bad.map((value) => ({ ...base, [name]: value })));
  }
  const values = typeof s.additionalProperties === "object" ? s.additionalProperties : null;
  if (s.propertyNames) {
    const badKey = invalidValue(s.propertyNames, resolve);
    const value = values ? validValue(values, resolve) : "v";
    if (badKey) {
      out.push(
        badKey
          .filter((k): k is string => typeof k === "string")
          .map((key) => ({ ...base, [key]: value })),
      );
    }
  }
  if (values && Object.keys(values).length > 0 && !s.properties) {
    const badValue = invalidValue(values, resolve);
    if (badValue) out.push(badValue.map((value) => ({ ...base, key: value })));
  }
  return out;
}

/**
 * Values the schema rejects: wrong JSON types, unknown enum and const values, strings too short,
 * too long or off-pattern, numbers out of range, missing required fields, bad nested values.
 * Null when nothing can be generated (the schema accepts anything).
 */
export function invalidValue(schema: JsonSchema, resolve: Resolve): fc.Arbitrary<unknown> | null {
  const s = resolve(schema);
  const options: fc.Arbitrary<unknown>[] = [];
  const allowed = allowedTypes(s, resolve);
  if (allowed) {
    const wrong = JSON_TYPES.filter(
      (t) => !allowed.has(t) && !(t === "integer" && allowed.has("number")),
    );
    if (wrong.length) options.push(fc.constantFrom(...wrong).chain(valueOfType));
  }
  const branches = s.oneOf ?? s.anyOf;
  // Branches are told apart by type or by a const discriminator, so breaking one branch's rules
  // (other than its type) leaves a value no branch accepts.
  const taken = new Map<string, unknown[]>();
  for (const branch of branches ?? []) {
    for (const [name, property] of Object.entries(resolve(branch).properties ?? {})) {
      const value = resolve(property).const;
      if (value !== undefined) taken.set(name, [...(taken.get(name) ?? []), value]);
    }
  }
  for (const branch of branches ?? [s]) {
    options.push(...structural(resolve(branch), resolve, taken));
  }
  return options.length ? fc.oneof(...options) : null;
}

import { z } from "zod";

/** Query-string page parameters, shared by every search endpoint. */
export const pageInput = {
  limit: z.coerce.number().int().min(1).max(100).default(100).describe("Page size, 1..100"),
  page_id: z
    .string()
    .min(1)
    .max(512)
    .optional()
    .describe("Opaque cursor from a previous page's next_page_id"),
};

export function pageOf<T extends z.ZodType>(item: T, name: string) {
  return z
    .object({
      items: z.array(item),
      next_page_id: z.string().nullable(),
    })
    .meta({ id: name });
}

export const Timestamp = z.string().describe("UTC ISO 8601 timestamp");

/**
 * Keys refused in user-given maps. JSON.parse keeps `__proto__` as an own key, but zod's record (like
 * any later spread) silently drops it; `constructor` and `prototype` invite the same confusion in
 * whoever reads the map next. Checked on the input, before the record sees it.
 */
const RESERVED_KEYS = ["__proto__", "constructor", "prototype"] as const;

function refusingKeys<T extends z.ZodType>(keys: readonly string[], schema: T) {
  return z.preprocess((value, ctx) => {
    if (value === null || typeof value !== "object") return value;
    for (const key of keys) {
      if (Object.hasOwn(value, key)) {
        ctx.addIssue({ code: "custom", path: [key], message: `"${key}" is a reserved key` });
      }
    }
    return value;
  }, schema);
}

/** Sandbox labels and conversation metadata. */
export const Labels = refusingKeys(
  RESERVED_KEYS,
  z
    .record(z.string().min(1).max(63), z.string().max(256))
    .refine((labels) => Object.keys(labels).length <= 32, "at most 32 labels"),
);

/** `__proto__` passes the identifier rule but could never arrive (see RESERVED_KEYS). */
export const EnvVars = refusingKeys(
  ["__proto__"],
  z
    .record(
      z
        .string()
        .regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, "environment variable names are identifiers"),
      z.string().max(32_768),
    )
    .refine((env) => Object.keys(env).length <= 128, "at most 128 variables"),
);

/** `true`/`false` in a query string (z.coerce.boolean would read "false" as true). */
export const QueryBoolean = z.enum(["true", "false"]).transform((value) => value === "true");

/** A repository page rendered for the wire: items mapped, cursor under its API name. */
export function toPageOut<Row, Item>(
  page: { items: Row[]; nextPageId: string | null },
  render: (row: Row) => Item,
): { items: Item[]; next_page_id: string | null } {
  return { items: page.items.map(render), next_page_id: page.nextPageId };
}

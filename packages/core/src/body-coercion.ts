import type { AnyTRPCProcedure } from "@trpc/server";
import { appRouter } from "./router";

interface ZodLike {
  _zod?: { def?: Record<string, unknown> & { type?: string } };
  unwrap?: () => ZodLike;
  shape?: Record<string, ZodLike>;
}

const WRAPPERS = new Set(["optional", "nullable", "default", "prefault"]);
const COERCIBLE = new Set(["number", "boolean", "bigint", "date"]);

function unwrap(schema: ZodLike): ZodLike {
  let current = schema;
  while (current._zod?.def?.type && WRAPPERS.has(current._zod.def.type) && current.unwrap) {
    current = current.unwrap();
  }
  return current;
}

function pinNoCoercion(schema: ZodLike, seen: Set<ZodLike>): void {
  if (seen.has(schema) || !schema.shape) return;
  seen.add(schema);
  for (const field of Object.values(schema.shape)) {
    const inner = unwrap(field);
    const def = inner._zod?.def;
    if (def?.type && COERCIBLE.has(def.type)) {
      if (Object.getOwnPropertyDescriptor(def, "coerce")?.get) continue;
      // trpc-to-openapi sets `def.coerce = true` on every request; this makes that a no-op.
      Object.defineProperty(def, "coerce", {
        get: () => false,
        set: () => {},
        configurable: false,
      });
    } else if (def?.type === "object") {
      pinNoCoercion(inner, seen);
    }
  }
}

/**
 * trpc-to-openapi coerces the fields of every input schema in place — for query strings that is
 * what we want, but for JSON bodies it would turn `"run": "yes"` into `true` and accept it.
 * Bodies must be validated exactly as the agent server validates them, so mutation inputs are
 * pinned to no coercion. Idempotent.
 */
export function pinBodySchemas(): void {
  const procedures = appRouter._def.procedures as unknown as Record<string, AnyTRPCProcedure>;
  const seen = new Set<ZodLike>();
  for (const procedure of Object.values(procedures)) {
    if (procedure._def.type !== "mutation") continue;
    for (const input of (procedure._def as { inputs?: ZodLike[] }).inputs ?? []) {
      pinNoCoercion(unwrap(input), seen);
    }
  }
}

import type { z } from "zod";
import { AppError, type ValidationIssue } from "../errors";

type Location = "body" | "query" | "path";

/** Parses with a zod schema; failures become 422 with FastAPI-style issues. */
export function validate<Schema extends z.ZodType>(
  schema: Schema,
  input: unknown,
  location: Location,
): z.infer<Schema> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw new AppError("VALIDATION_FAILED", toIssues(result.error, location));
}

export function toIssues(error: z.ZodError, location: Location): ValidationIssue[] {
  return error.issues.map((issue) => ({
    type: issue.code,
    loc: [location, ...issue.path.map((part) => (typeof part === "symbol" ? String(part) : part))],
    msg: issue.message,
  }));
}

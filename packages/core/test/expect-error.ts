import { TRPCError } from "@trpc/server";
import { expect } from "vitest";
import { type DescribedError, describeError } from "../src/describe-error";
import { type ErrorCode, errorCodes } from "../src/errors";

/**
 * Awaits a call that must fail with our error `code`: a `TRPCError` carrying the table's tRPC code,
 * described (as both surfaces describe it) with that code and its HTTP status. Returns the
 * description for further checks (message, issues, details).
 */
export async function expectAppError(
  call: Promise<unknown>,
  code: ErrorCode,
): Promise<DescribedError> {
  const error = await call.then(
    (value) => {
      throw new Error(`expected ${code}, but the call answered ${JSON.stringify(value)}`);
    },
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(TRPCError);
  const described = describeError(error);
  expect({
    code: described.code,
    status: described.status,
    trpc: (error as TRPCError).code,
  }).toEqual({ code, status: errorCodes[code].status, trpc: errorCodes[code].trpc });
  return described;
}

/** A validation failure (422 VALIDATION_FAILED) with an issue at (or below) each of `paths`. */
export async function expectValidationError(
  call: Promise<unknown>,
  ...paths: (string | number)[][]
): Promise<DescribedError> {
  const described = await expectAppError(call, "VALIDATION_FAILED");
  const issuePaths = (described.issues ?? []).map((issue) => issue.path);
  for (const wanted of paths) {
    const found = issuePaths.some((at) => wanted.every((segment, i) => at[i] === segment));
    expect(found, `an issue at ${JSON.stringify(wanted)} in ${JSON.stringify(issuePaths)}`).toBe(
      true,
    );
  }
  return described;
}

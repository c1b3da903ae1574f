import type { AppRouter as ServerRouter } from "@sandbox-server/core";
import type { inferRouterInputs, inferRouterOutputs } from "@trpc/server";
import { expectTypeOf, it } from "vitest";
import type { AppRouter, RouterInputs, RouterOutputs, SandboxErrorShape } from "./app-router";

// Checked by `tsc` (npm run typecheck): the client's router is the server's, less its context.
it("has the server's procedures with the same inputs and outputs", () => {
  expectTypeOf<RouterInputs>().toEqualTypeOf<inferRouterInputs<ServerRouter>>();
  expectTypeOf<RouterOutputs>().toEqualTypeOf<inferRouterOutputs<ServerRouter>>();
  expectTypeOf<AppRouter>().not.toBeAny();
  expectTypeOf<
    ServerRouter["_def"]["_config"]["$types"]["errorShape"]
  >().toExtend<SandboxErrorShape>();
  expectTypeOf<RouterInputs["sandboxes"]["start"]>().toExtend<{ sandbox_spec_id?: string }>();
});

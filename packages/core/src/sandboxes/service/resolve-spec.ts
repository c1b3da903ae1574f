import type { SandboxSpecRow } from "@sandbox-server/db";
import type { CoreConfig, CoreDeps } from "../../deps";
import { AppError } from "../../errors";

export async function resolveSpec(
  deps: Pick<CoreDeps, "repos" | "runtime"> & { config: Pick<CoreConfig, "defaultSpecId"> },
  specId: string | undefined,
): Promise<SandboxSpecRow> {
  const id = specId ?? deps.config.defaultSpecId;
  const spec = await deps.repos.specs.get(id);
  if (!spec) throw new AppError("SANDBOX_SPEC_NOT_FOUND", `Sandbox spec ${id} was not found`);
  if (spec.runtime !== "any" && spec.runtime !== deps.runtime.kind) {
    throw new AppError(
      "SPEC_NOT_SUPPORTED",
      `Sandbox spec ${id} needs the ${spec.runtime} runtime; this server runs ${deps.runtime.kind}`,
    );
  }
  return spec;
}

import { z } from "zod";
import { SandboxId } from "./contracts";

export const SandboxSecretsInput = z.object({ id: SandboxId });

export const SandboxSecretInput = z.object({
  id: SandboxId,
  secret_name: z.string().min(1).max(256),
});

export const SecretNames = z
  .object({
    secrets: z.array(z.object({ name: z.string(), description: z.string().nullable() })),
  })
  .meta({ id: "SecretNamesResponse" });

import type { SandboxPortAccess } from "@sandbox-server/db";
import { z } from "zod";
import { DEFAULT_PORT_URL_TTL_S, MAX_PORT_URL_TTL_S } from "../../state/port-urls";

const Port = z.coerce.number().int().min(1).max(65535);

/** At most this many ports declared at create. */
export const MAX_DECLARED_PORTS = 16;

export const DeclaredPortInput = z.object({
  port: Port.describe("A port the sandbox serves on (1..65535)"),
  name: z
    .string()
    .regex(/^[A-Z][A-Z0-9_]{0,31}$/, "upper-case letters, digits and _, at most 32")
    .describe("Its name in `exposed_urls`, e.g. `VSCODE`, `WORKER_1`"),
});

/** The port fields of a create. */
export const portAccessInput = {
  ports: z
    .array(DeclaredPortInput)
    .max(MAX_DECLARED_PORTS)
    .refine((ports) => new Set(ports.map((p) => p.name)).size === ports.length, "names must differ")
    .optional()
    .describe(
      "Ports to list in `exposed_urls`, each with a signed URL (1 h) while RUNNING; any other port is reached with GET /sandboxes/{id}/ports/{port}",
    ),
  auto_resume: z
    .boolean()
    .optional()
    .describe("Opening a port URL of this sandbox while it is PAUSED resumes it (default false)"),
};

export function portAccessOf(input: {
  ports?: { port: number; name: string }[] | undefined;
  auto_resume?: boolean | undefined;
}): SandboxPortAccess {
  return {
    declared: (input.ports ?? []).map(({ port, name }) => ({ port, name })),
    autoResume: input.auto_resume ?? false,
  };
}

export const GetSandboxPortInput = z.object({
  id: z.string().min(1).max(64).describe("Sandbox id"),
  port: Port.describe("The port inside the sandbox, 1..65535 (not its agent server's)"),
  expires_in_s: z.coerce
    .number()
    .int()
    .min(1)
    .max(MAX_PORT_URL_TTL_S)
    .default(DEFAULT_PORT_URL_TTL_S)
    .describe(
      `How long the URL works, 1..${MAX_PORT_URL_TTL_S} seconds (default ${DEFAULT_PORT_URL_TTL_S})`,
    ),
});

export const SandboxPortUrl = z
  .object({
    port: z.number().int(),
    url: z
      .string()
      .describe(
        "Reaches the port (HTTP and WebSocket, any path) until `expires_at`; no key needed",
      ),
    expires_at: z.string(),
  })
  .meta({ id: "SandboxPortUrl" });
export type SandboxPortUrl = z.infer<typeof SandboxPortUrl>;

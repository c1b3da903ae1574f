import { existsSync } from "node:fs";
import path from "node:path";
import type { SandboxRuntime } from "@sandbox-server/runtime";

export interface BannerInput {
  url: string;
  runtime: SandboxRuntime;
  dataDir: string;
  /** Whether the admin key comes from ADMIN_API_KEY rather than the key file. */
  adminKeyFromEnv: boolean;
  /** Lines about the configuration the operator should see (a Docker endpoint that is down). */
  notices?: readonly string[];
}

const isolationText: Record<SandboxRuntime["isolation"], string> = {
  container: "containers (own network, no inter-container traffic)",
  namespaces: "bubblewrap namespaces (own user, pid, ipc, uts and mount namespaces)",
  none: "NONE",
};

function networkText(runtime: SandboxRuntime): string {
  if (runtime.network === "own") return "; own network namespace, egress policy enforced";
  if (runtime.network === "shared") return "; the HOST'S network (its loopback services reachable)";
  return "";
}

/**
 * What a person needs at start-up, as plain lines beside the JSON logs: where the server is, its
 * docs, how sandboxes are isolated, and where the admin key is — on every start, not only the
 * first (a first start that failed after writing the key must not hide it).
 */
export function startupBanner(input: BannerInput): string {
  const keyFile = path.join(input.dataDir, "admin-api-key");
  const adminKey = input.adminKeyFromEnv
    ? "the ADMIN_API_KEY environment variable"
    : existsSync(keyFile)
      ? `${keyFile} (mode 0600)`
      : "not on disk (it was created earlier and its file removed; create a key with an admin key)";
  const lines = [
    `Sandbox Server is listening on ${input.url}`,
    `  API docs:   ${input.url}/docs  (OpenAPI: ${input.url}/api/v1/openapi.json)`,
    `  Runtime:    ${input.runtime.kind}, isolation: ${isolationText[input.runtime.isolation]}${networkText(input.runtime)}`,
    ...(input.runtime.isolationDetail ? [`              ${input.runtime.isolationDetail}`] : []),
    `  Admin key:  ${adminKey}`,
    `  Data:       ${input.dataDir}`,
    ...(input.notices ?? []).map((line) => `  NOTE: ${line}`),
  ];
  if (input.runtime.isolation === "none") {
    lines.push(
      "",
      "  WARNING: sandboxes are NOT isolated. Code an agent runs can read this server's files and",
      "  environment and reach other sandboxes. Use it only for yourself and your own agents.",
      "  To isolate them, install bubblewrap (apt-get install bubblewrap) or run a Docker daemon,",
      "  then restart. Keys for a second user are refused unless ALLOW_UNISOLATED_MULTI_USER=true.",
    );
  }
  return `${lines.join("\n")}\n`;
}

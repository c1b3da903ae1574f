import type { AppRouter } from "@sandbox-server/core";
import { createTRPCClient, httpLink } from "@trpc/client";

export interface SandboxClientOptions {
  /** Base URL of the control plane, e.g. http://127.0.0.1:3000 */
  url: string;
  apiKey: string;
  fetch?: typeof fetch;
}

/**
 * A typed client over the control plane's tRPC surface: the same procedures as the REST API,
 * with inputs and outputs typed from the server's router.
 */
export function createSandboxClient(options: SandboxClientOptions) {
  return createTRPCClient<AppRouter>({
    links: [
      httpLink({
        url: `${options.url.replace(/\/$/, "")}/trpc`,
        headers: () => ({ authorization: `Bearer ${options.apiKey}` }),
        ...(options.fetch ? { fetch: options.fetch } : {}),
      }),
    ],
  });
}

export type SandboxClient = ReturnType<typeof createSandboxClient>;
export type { AppRouter };

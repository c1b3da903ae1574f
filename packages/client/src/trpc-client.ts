import { createTRPCClient, httpLink, type TRPCClient } from "@trpc/client";
import type { AppRouter } from "./app-router";

export interface SandboxClientOptions {
  /** Base URL of the control plane, e.g. `http://127.0.0.1:3000`. */
  url: string;
  /** An API key (`ssk_…`); sent as `Authorization: Bearer <key>`. */
  apiKey: string;
  /** A fetch implementation (proxies, tests); the global `fetch` by default. */
  fetch?: typeof globalThis.fetch;
}

/** The control plane's base URL without a trailing slash. */
export function baseUrlOf(url: string): string {
  return url.replace(/\/+$/, "");
}

/**
 * A typed client over the control plane's tRPC surface (`/trpc`): the same procedures as the REST
 * API, with every input and output typed from the server's router.
 */
export function createSandboxClient(options: SandboxClientOptions): SandboxClient {
  return createTRPCClient<AppRouter>({
    links: [
      httpLink({
        url: `${baseUrlOf(options.url)}/trpc`,
        headers: () => ({ authorization: `Bearer ${options.apiKey}` }),
        ...(options.fetch ? { fetch: options.fetch } : {}),
      }),
    ],
  });
}

export type SandboxClient = TRPCClient<AppRouter>;

import createClient from "openapi-fetch";
import type { paths } from "./generated/openapi";
import { baseUrlOf, type SandboxClientOptions } from "./trpc-client";

/**
 * A typed fetch client over the REST surface (`/api/v1`), typed from the server's OpenAPI
 * document: `rest.GET("/api/v1/sandboxes/{id}", { params: { path: { id } } })` answers
 * `{ data, error, response }`, where `error` is the JSON error body (`{ code, message, ... }`).
 */
export function createRestClient(options: SandboxClientOptions) {
  return createClient<paths>({
    baseUrl: baseUrlOf(options.url),
    headers: { authorization: `Bearer ${options.apiKey}` },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
}

export type RestClient = ReturnType<typeof createRestClient>;

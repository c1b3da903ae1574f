import type { TestProject } from "vitest/node";
import { startTestServer } from "./server";

declare module "vitest" {
  export interface ProvidedContext {
    server: { url: string; apiKey: string };
  }
}

/** One control plane for every test file of the package; stopped (sandboxes removed) at the end. */
export default async function setup(project: TestProject) {
  const server = await startTestServer();
  project.provide("server", { url: server.url, apiKey: server.apiKey });
  return () => server.stop();
}

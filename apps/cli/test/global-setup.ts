import type { TestProject } from "vitest/node";
import { startServerWithCli } from "./cli";

declare module "vitest" {
  export interface ProvidedContext {
    server: { url: string; dataDir: string };
  }
}

/** One control plane, started by `sandbox-server start`, for the test files; stopped at the end. */
export default async function setup(project: TestProject) {
  const server = await startServerWithCli();
  project.provide("server", { url: server.url, dataDir: server.dataDir });
  return async () => {
    await server.stop();
  };
}

import { expect, it } from "vitest";
import { startServerWithCli } from "./cli";

it("start runs the control plane until SIGTERM, then exits 0", async () => {
  const server = await startServerWithCli();
  const health = await fetch(`${server.url}/health`);
  expect(health.status).toBe(200);
  expect(await server.stop()).toBe(0);
  await expect(fetch(`${server.url}/health`)).rejects.toThrow();
});

import { expect, it } from "vitest";
import { startServerWithCli } from "./cli";

it.each(["SIGTERM", "SIGINT"] as const)(
  "start runs the control plane until %s, then exits 0",
  async (signal) => {
    const server = await startServerWithCli();
    const health = await fetch(`${server.url}/health`);
    expect(health.status).toBe(200);
    expect(await server.stop(signal)).toBe(0);
    await expect(fetch(`${server.url}/health`)).rejects.toThrow();
  },
);

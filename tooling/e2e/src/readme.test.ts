import { readFileSync } from "node:fs";
import path from "node:path";
import type { ServerProcess } from "@sandbox-server/server/testing";
import { afterAll, beforeAll, expect, inject, it } from "vitest";
import { startCloneServer } from "./lib/clone-server";
import { readmeTestBlocks } from "./lib/readme-blocks";
import { runStatus } from "./lib/run";

const cloneDir = inject("cloneDir");
let server: ServerProcess;

beforeAll(async () => {
  server = await startCloneServer(cloneDir);
});

afterAll(async () => {
  await server?.dispose();
});

it("runs every readme-test block of the README as written, in one bash, from the clone", async () => {
  const blocks = readmeTestBlocks(readFileSync(path.join(cloneDir, "README.md"), "utf8"));
  expect(blocks.length).toBeGreaterThan(0);
  // The first walkthrough does the main job: a message through send-message, the reply read back.
  expect(blocks[0]).toContain("/send-message");
  expect(blocks[0]).toContain("source=agent");

  const result = await runStatus("bash", ["-euo", "pipefail", "-c", blocks.join("\n\n")], {
    cwd: cloneDir,
    env: { ...process.env, DATA_DIR: server.dataDir, SANDBOX_SERVER_URL: server.url },
  });
  const transcript = `${result.stdout}\n${result.stderr}\n--- server ---\n${server.output()}`;
  expect(result.code, transcript).toBe(0);
});

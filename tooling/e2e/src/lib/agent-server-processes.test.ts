import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, expect, it } from "vitest";
import { agentServerProcesses } from "./agent-server-processes";

let child: ChildProcess | undefined;
let dir: string | undefined;

afterEach(() => {
  child?.kill("SIGKILL");
  if (dir) rmSync(dir, { recursive: true, force: true });
});

it("finds a process that runs an agent-server bundle", async () => {
  dir = mkdtempSync(path.join(tmpdir(), "sandbox-e2e-leftover-"));
  const bundle = path.join(dir, "agent-server.js");
  writeFileSync(bundle, "process.stdout.write('up'); setInterval(() => {}, 1000);");
  child = spawn(process.execPath, [bundle], { stdio: ["ignore", "pipe", "ignore"] });
  await new Promise((resolve) => child?.stdout?.once("data", resolve));

  const found = agentServerProcesses();
  expect(found.some((line) => line.startsWith(`${child?.pid} `))).toBe(true);
});

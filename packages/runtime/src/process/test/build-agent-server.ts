import { spawn } from "node:child_process";
import { readdir, stat } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";

/**
 * vitest globalSetup: the process-runtime tests launch the real agent-server bundle, so it is
 * (re)built when missing or older than any of its sources.
 */

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../../..");

export const AGENT_SERVER_BUNDLE = path.join(repoRoot, "apps/agent-server/dist/agent-server.js");

// What the bundle is made of: the app itself and the shared contracts package it imports.
const SOURCES = [
  "apps/agent-server/src",
  "apps/agent-server/build.mjs",
  "apps/agent-server/package.json",
  "packages/agent-contracts/src",
].map((source) => path.join(repoRoot, source));

export default async function setup(): Promise<void> {
  const built = await modifiedAt(AGENT_SERVER_BUNDLE);
  const newestSource = Math.max(...(await Promise.all(SOURCES.map(newestModification))));
  if (built !== null && built >= newestSource) return;
  console.info("[process tests] building the agent-server bundle...");
  await run("npm", ["run", "--silent", "build", "-w", "@sandbox-server/agent-server"]);
}

async function newestModification(file: string): Promise<number> {
  const info = await stat(file).catch(() => null);
  if (info === null) return 0;
  if (!info.isDirectory()) return info.mtimeMs;
  const entries = await readdir(file);
  const times = await Promise.all(
    entries.map((entry) => newestModification(path.join(file, entry))),
  );
  return Math.max(info.mtimeMs, ...times);
}

async function modifiedAt(file: string): Promise<number | null> {
  const info = await stat(file).catch(() => null);
  return info?.mtimeMs ?? null;
}

function run(command: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: repoRoot, stdio: ["ignore", "inherit", "inherit"] });
    child.on("error", reject);
    child.on("exit", (code) => {
      if (code === 0) resolve();
      else reject(new Error(`${command} ${args.join(" ")} failed with exit code ${code}`));
    });
  });
}

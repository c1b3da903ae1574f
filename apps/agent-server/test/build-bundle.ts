import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
export const BUNDLE = path.join(root, "dist", "agent-server.js");

/** vitest globalSetup: builds the bundle when it is missing or older than a source file. */
export default function buildBundleIfStale(): void {
  const bundleTime = fs.statSync(BUNDLE, { throwIfNoEntry: false })?.mtimeMs ?? 0;
  if (bundleTime > newestSourceTime()) return;
  execFileSync(process.execPath, [path.join(root, "build.mjs")], { stdio: "inherit" });
}

function newestSourceTime(): number {
  const sources = [path.join(root, "src"), path.join(root, "../../packages/agent-contracts/src")];
  let newest = fs.statSync(path.join(root, "build.mjs")).mtimeMs;
  for (const dir of sources) {
    for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || entry.name.endsWith(".test.ts")) continue;
      newest = Math.max(newest, fs.statSync(path.join(entry.parentPath, entry.name)).mtimeMs);
    }
  }
  return newest;
}

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { repoRoot } from "./lib/paths";
import { run } from "./lib/run";

declare module "vitest" {
  export interface ProvidedContext {
    /** A clone of the commit under test after `npm ci` and the server's build. */
    cloneDir: string;
  }
}

/**
 * What a new user starts from: `git clone` of the current commit into a temporary directory,
 * `npm ci`, and the control plane built as `npm start` builds it. Uncommitted changes are not in
 * it, by design: the clone is what a user would get.
 */
export default async function setup(project: TestProject): Promise<() => void> {
  const commit = (await run("git", ["rev-parse", "HEAD"], { cwd: repoRoot })).trim();
  const dirty = (await run("git", ["status", "--porcelain"], { cwd: repoRoot })).trim();
  if (dirty) {
    console.warn(`[e2e] uncommitted changes are not in the clone; it checks out ${commit}`);
  }
  const dir = mkdtempSync(path.join(tmpdir(), "sandbox-e2e-clone-"));
  const env = {
    ...process.env,
    TURBO_TELEMETRY_DISABLED: "1",
    NPM_CONFIG_UPDATE_NOTIFIER: "false",
  };
  try {
    await run("git", ["clone", "--quiet", "--no-checkout", repoRoot, dir]);
    await run("git", ["checkout", "--quiet", "--detach", commit], { cwd: dir });
    console.info(`[e2e] ${commit.slice(0, 12)} cloned into ${dir}; npm ci...`);
    await run("npm", ["ci", "--no-audit", "--no-fund", "--loglevel=error"], { cwd: dir, env });
    await run(
      "npx",
      ["--no-install", "turbo", "run", "build", "--filter=@sandbox-server/server..."],
      { cwd: dir, env },
    );
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  project.provide("cloneDir", dir);
  return () => rmSync(dir, { recursive: true, force: true });
}

import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { AGENT_SERVER_BUNDLE, REPO_ROOT } from "./paths";

/**
 * vitest globalSetup: the procedure tests run sandboxes with the real agent-server bundle, so it is
 * built when missing. Only when missing: a bundle that exists is what the other packages' tests
 * run too, and rebuilding here while someone edits the agent server would test half an edit.
 */
export default async function setup(): Promise<void> {
  if (existsSync(AGENT_SERVER_BUNDLE)) return;
  console.info("[core tests] building the agent-server bundle...");
  await new Promise<void>((resolve, reject) => {
    const child = spawn(
      "npx",
      [
        "turbo",
        "run",
        "build",
        "--filter=@sandbox-server/agent-server",
        "--output-logs=errors-only",
      ],
      { cwd: REPO_ROOT, stdio: ["ignore", "inherit", "inherit"] },
    );
    child.on("error", reject);
    child.on("exit", (code) =>
      code === 0 ? resolve() : reject(new Error(`building the agent server failed (${code})`)),
    );
  });
  if (!existsSync(AGENT_SERVER_BUNDLE)) {
    throw new Error(`the build did not produce ${AGENT_SERVER_BUNDLE}`);
  }
}

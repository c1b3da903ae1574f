import path from "node:path";
import { fileURLToPath } from "node:url";

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

/** What the process runtime runs in every sandbox. */
export const AGENT_SERVER_BUNDLE = path.join(REPO_ROOT, "apps/agent-server/dist/agent-server.js");

/** The core package's sources and tests (the coverage guard reads the tests). */
export const CORE_ROOT = path.join(REPO_ROOT, "packages/core");

// Bundles the control plane into dist/server.js, and the ingest worker it starts beside it (events
// followed on their own thread) into dist/event-worker.js.
import { cpSync, rmSync } from "node:fs";
import { build } from "esbuild";
import { bundleOptions } from "./bundle.mjs";

rmSync("dist", { recursive: true, force: true });
await build({
  ...bundleOptions,
  entryPoints: { server: "src/main.ts", "event-worker": "src/event-worker.ts" },
  outdir: "dist",
});
cpSync("../../packages/db/drizzle", "dist/drizzle", { recursive: true });
cpSync("../../packages/db/drizzle-pg", "dist/drizzle-pg", { recursive: true });

// Bundles the control plane into dist/server.js; native and asset-carrying modules stay external.
import { cpSync, rmSync } from "node:fs";
import { build } from "esbuild";

rmSync("dist", { recursive: true, force: true });
await build({
  entryPoints: ["src/main.ts"],
  outfile: "dist/server.js",
  bundle: true,
  platform: "node",
  target: "node20",
  format: "esm",
  sourcemap: true,
  external: [
    "better-sqlite3",
    "dockerode",
    "swagger-ui-express",
    "swagger-ui-dist",
    "pino",
    "cpu-features",
    "ssh2",
    // pg's optional native binding (never used: node-postgres runs in pure JS here).
    "pg-native",
  ],
  banner: {
    js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
  },
  logLevel: "warning",
});
cpSync("../../packages/db/drizzle", "dist/drizzle", { recursive: true });
cpSync("../../packages/db/drizzle-pg", "dist/drizzle-pg", { recursive: true });

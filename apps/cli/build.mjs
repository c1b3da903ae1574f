// Bundles the command into dist/cli.js. The client is taken from its TypeScript sources (the
// `@sandbox-server/source` export condition), so this needs no other package built first and runs
// from `prepare` during `npm install`.
import { rmSync } from "node:fs";
import { build } from "esbuild";

rmSync("dist", { recursive: true, force: true });
await build({
  entryPoints: ["src/main.ts"],
  outfile: "dist/cli.js",
  bundle: true,
  platform: "node",
  target: "node20",
  format: "esm",
  conditions: ["@sandbox-server/source"],
  sourcemap: true,
  // commander is CommonJS and requires Node's modules at run time.
  banner: {
    js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
  },
  logLevel: "warning",
});

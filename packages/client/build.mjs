// Builds the publishable package: dist/index.js (ESM, one file) and dist/index.d.ts (one file, with
// the router's types written out in full and nothing of the private server packages).
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { build } from "esbuild";
import { rollup } from "rollup";
import { dts } from "rollup-plugin-dts";

const external = ["@trpc/client", "@trpc/server", "openapi-fetch"];
const isExternal = (id) => external.some((name) => id === name || id.startsWith(`${name}/`));

rmSync("dist", { recursive: true, force: true });
await build({
  entryPoints: ["src/index.ts"],
  outfile: "dist/index.js",
  bundle: true,
  format: "esm",
  platform: "neutral",
  target: "es2022",
  external,
  sourcemap: true,
  logLevel: "warning",
});

// tsc writes one declaration file per source (AppRouter inferred, so written out in full), then
// rollup-plugin-dts joins them; anything from @trpc/* and openapi-fetch stays an import.
const declarations = mkdtempSync(path.join(tmpdir(), "sandbox-client-dts-"));
try {
  const tsc = path.resolve("../../node_modules/typescript/bin/tsc");
  execFileSync(process.execPath, [tsc, "-p", "tsconfig.build.json", "--outDir", declarations], {
    stdio: "inherit",
  });
  const bundle = await rollup({
    input: path.join(declarations, "index.d.ts"),
    plugins: [dts()],
    external: isExternal,
  });
  await bundle.write({ file: "dist/index.d.ts", format: "es" });
  await bundle.close();
} finally {
  rmSync(declarations, { recursive: true, force: true });
}

const types = readFileSync("dist/index.d.ts", "utf8");
const leaked = types.match(/["']@sandbox-server\/[^"']*["']/);
if (leaked) {
  throw new Error(`dist/index.d.ts refers to the private package ${leaked[0]}`);
}

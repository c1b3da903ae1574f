// Bundles the control plane into dist/server.js, and the ingest worker it starts beside it (events
// followed on their own thread) into dist/event-worker.js.
import { cpSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { build } from "esbuild";
import { bundleOptions } from "./bundle.mjs";

rmSync("dist", { recursive: true, force: true });
await build({
  ...bundleOptions,
  entryPoints: { server: "src/main.ts", "event-worker": "src/event-worker.ts" },
  outdir: "dist",
});
// V8 keeps a script's source in memory for as long as it runs, one byte a character when every
// character is Latin-1 and two otherwise. esbuild escapes whatever it prints of the code, but copies
// comments as they are, and a few (curly quotes in bundled libraries) make a whole bundle's source
// take twice its size in the heap. Only comments can hold such characters, so escaping them changes no
// behaviour.
for (const file of ["dist/server.js", "dist/event-worker.js"]) {
  const source = readFileSync(file, "utf8");
  const ascii = source.replace(
    /[\u0080-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
  if (ascii !== source) writeFileSync(file, ascii);
}
cpSync("../../packages/db/drizzle", "dist/drizzle", { recursive: true });
cpSync("../../packages/db/drizzle-pg", "dist/drizzle-pg", { recursive: true });

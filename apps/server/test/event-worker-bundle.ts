import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";
// @ts-expect-error -- a plain .mjs module of this package (the build's options), no types.
import { bundleOptions } from "../bundle.mjs";

let bundled: Promise<URL> | null = null;

/**
 * The ingest worker as the server's bundle ships it (dist/event-worker.js), bundled from the
 * current sources once per test process: a worker thread does not run TypeScript, and a bundle
 * made here is never stale.
 */
export function testEventWorkerScript(): Promise<URL> {
  bundled ??= (async () => {
    // Inside this package, where the bundle's external modules (better-sqlite3, pg) resolve.
    const cache = fileURLToPath(new URL("../node_modules/.cache", import.meta.url));
    mkdirSync(cache, { recursive: true });
    const dir = mkdtempSync(path.join(cache, "event-worker-"));
    process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
    const outfile = path.join(dir, "event-worker.js");
    await build({
      ...bundleOptions,
      sourcemap: false,
      entryPoints: [fileURLToPath(new URL("../src/event-worker.ts", import.meta.url))],
      outfile,
    });
    return pathToFileURL(outfile);
  })();
  return bundled;
}

#!/usr/bin/env node
// The `sandbox-server` command. `npm install` builds dist/cli.js through this package's `prepare`
// script, so the command works in a fresh clone right after `npm install`.
import { existsSync } from "node:fs";

const entry = new URL("../dist/cli.js", import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write(
    "sandbox-server: the command is not built; run `npm install` (or `npm run build -w @sandbox-server/cli`) in the repository\n",
  );
  process.exit(1);
}
await import(entry.href);

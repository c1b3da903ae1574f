// Bundles the agent server into one ESM file that runs with plain `node` and no node_modules.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { build } from "esbuild";

const outfile = new URL("./dist/agent-server.js", import.meta.url).pathname;
const { version } = JSON.parse(readFileSync(new URL("./package.json", import.meta.url), "utf8"));

const result = await build({
  entryPoints: [new URL("./src/main.ts", import.meta.url).pathname],
  outfile,
  write: false,
  bundle: true,
  platform: "node",
  target: "node20",
  format: "esm",
  legalComments: "none",
  logLevel: "warning",
  define: { __AGENT_SERVER_VERSION__: JSON.stringify(version) },
  // express and its dependencies are CommonJS and call require() for node built-ins.
  banner: {
    js: [
      "import { createRequire as __createRequire } from 'node:module';",
      "const require = __createRequire(import.meta.url);",
    ].join("\n"),
  },
});

// Write-then-rename: a process starting the bundle meanwhile sees the old file or the new one.
const [bundle] = result.outputFiles;
mkdirSync(new URL("./dist/", import.meta.url), { recursive: true });
const temporary = `${outfile}.${process.pid}.tmp`;
writeFileSync(temporary, bundle.contents);
renameSync(temporary, outfile);

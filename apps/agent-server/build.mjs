// Bundles the agent server into one CommonJS file that runs with plain `node` and no node_modules.
//
// CommonJS, not ESM: node sets up its ESM loader only for an ES module entry, and that set-up cost
// every sandbox ~1.5 MiB of RSS and a few ms of CPU at start. `dist/package.json` says
// "commonjs" (the image and the process runtime's bubblewrap view write the same). The sources are
// still ES modules; the bundle uses neither `require` nor `import.meta` at its top, so node also
// runs it when a stale package.json calls it a module (only without the saving).
//
// Everything behind /api and /sockets (api.ts: zod, the contracts, agents; ws and busboy further
// behind) is reached through dynamic import(), which esbuild turns into lazily initialised code
// in the same file: a fresh sandbox parses it but does not run it until its first API call.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { builtinModules } from "node:module";
import path from "node:path";
import { build, transform } from "esbuild";

const outfile = new URL("./dist/agent-server.js", import.meta.url).pathname;
const { version } = JSON.parse(readFileSync(new URL("./package.json", import.meta.url), "utf8"));

// zod's namespace object carries every locale (about 265 KB minified, half of zod); only the
// default English messages are used here, so the other locales are left out.
const englishOnly = {
  name: "zod-english-only",
  setup(builder) {
    builder.onResolve({ filter: /locales\/index\.js$/ }, (args) =>
      args.importer.includes("/node_modules/zod/")
        ? { path: path.resolve(args.resolveDir, args.path), namespace: "zod-locales" }
        : undefined,
    );
    builder.onLoad({ filter: /.*/, namespace: "zod-locales" }, (args) => ({
      contents: 'export { default as en } from "./en.js";',
      resolveDir: path.dirname(args.path),
      loader: "js",
    }));
  },
};

// Node built-ins are fetched (process.getBuiltinModule) by the module that uses them, when that
// module first runs, rather than imported by the bundle at start: an ESM import of a built-in also
// builds its ESM facade (node:fs's reads every lazy getter and so loads streams, ~8 ms), and the
// built-ins only the API needs (child_process, crypto, zlib for ws, ...) then wait for the first
// API call. The same holds for ws and busboy, whose require() calls land here too.
//
// ws requires https and tls (for its client) and zlib (for compression, which this server does not
// offer) when it is loaded, at a sandbox's first events socket: ~5 ms and some memory for modules
// it never calls here. What ws requires of those gets a stand-in that loads the module at its
// first property read.
const builtins = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));
const unusedByWs = new Set(["https", "tls", "zlib"]);
const lazyBuiltins = {
  name: "lazy-builtins",
  setup(builder) {
    builder.onResolve({ filter: /.*/ }, (args) => {
      if (!builtins.has(args.path)) return undefined;
      const deferred = unusedByWs.has(args.path) && args.importer.includes("/node_modules/ws/");
      const imported = args.kind === "import-statement";
      return {
        path: args.path,
        namespace: deferred ? "deferred-builtin" : imported ? "imported-builtin" : "builtin",
      };
    });
    builder.onLoad({ filter: /.*/, namespace: "builtin" }, (args) => ({
      contents: `module.exports = process.getBuiltinModule(${JSON.stringify(args.path)});`,
      loader: "js",
    }));
    // An \`import\` of CommonJS gets a copy of the module's properties, a getter each, made where
    // it is imported (fs: a hundred, and a dozen modules import it); this module has two, the
    // default export and the flag that says so, and finds everything else on its prototype.
    builder.onLoad({ filter: /.*/, namespace: "imported-builtin" }, (args) => ({
      contents: `const builtin = process.getBuiltinModule(${JSON.stringify(args.path)});
module.exports = { __proto__: builtin, __esModule: true, default: builtin };`,
      loader: "js",
    }));
    builder.onLoad({ filter: /.*/, namespace: "deferred-builtin" }, (args) => ({
      contents: `let loaded;
module.exports = new Proxy({}, {
  get: (_, key) => (loaded ??= process.getBuiltinModule(${JSON.stringify(args.path)}))[key],
});`,
      loader: "js",
    }));
  },
};

// ws tries `require("bufferutil")` and `require("utf-8-validate")` (optional native addons) and
// falls back to JS when they throw. Resolved here to a module that throws, so the bundle behaves
// the same wherever it runs, whatever node_modules happen to lie above it.
const noNativeAddons = {
  name: "no-native-addons",
  setup(builder) {
    builder.onResolve({ filter: /^(bufferutil|utf-8-validate)$/ }, (args) => ({
      path: args.path,
      namespace: "absent",
    }));
    builder.onLoad({ filter: /.*/, namespace: "absent" }, (args) => ({
      contents: `throw new Error(${JSON.stringify(`${args.path} is not bundled`)});`,
      loader: "js",
    }));
  },
};

/**
 * A module whose namespace object is used (zod's `export * as ...`, a dynamic import) gets it
 * filled at the bundle's top level: getters for every export, zod's nine namespaces close to a
 * thousand, made at every start although zod itself is initialised only at the first API call.
 * Each is moved into its module's lazy initialiser, which runs before anything reads it.
 */
function lazyNamespaces(text) {
  const exported = /\/\/ (\S+)\nvar (\w+) = \{\};\n(__export\(\2, \{\n[\s\S]*?\n\}\);\n)/g;
  let moved = text;
  for (const [, modulePath, , fill] of text.matchAll(exported)) {
    const init = `__esm({\n  ${JSON.stringify(modulePath)}() {\n`;
    if (moved.split(init).length !== 2) continue;
    moved = moved.replace(fill, "").replace(init, () => `${init}${fill}`);
  }
  // Each lazy module is keyed by its path, which only the unminified output needs (esbuild's
  // minified bundles leave it out): a short key instead.
  return moved.replace(/(__esm|__commonJS)\(\{\n {2}"[^"\n]*"\(/g, "$1({\n  m(");
}

const result = await build({
  entryPoints: [new URL("./src/main.ts", import.meta.url).pathname],
  outfile,
  write: false,
  bundle: true,
  platform: "node",
  target: "node20",
  // esbuild starts the file with "use strict" (the sources are ES modules, hence strict).
  format: "cjs",
  legalComments: "none",
  logLevel: "warning",
  // Minified below, once the namespaces are moved (lazyNamespaces).
  minify: false,
  plugins: [englishOnly, lazyBuiltins, noNativeAddons],
  define: { __AGENT_SERVER_VERSION__: JSON.stringify(version) },
});

// The file node runs is a small loader with the bundle inside it as one string: V8 compiles the
// bundle through vm.Script with the code cache beside it (agent-server.cache) when that cache was
// made for exactly this bundle, which spares every sandbox start the compile of ~320 KB
// (~15 ms of its ~100). Without a usable cache it compiles as node would. The cache starts with
// the bundle's hash, because V8's own check compares only the source's length (a stale cache of a
// same-length bundle would run old code), and with its data's length, because V8 does not verify
// the data (a truncated cache would crash node). `--write-code-cache` (never passed by the
// runtimes) writes the cache for the node that runs it: here for this machine's node, and in the
// sandbox image for the image's. `--code-cache-status` prints whether a start would use it
// (used; absent; stale: made for another bundle; refused: cut short, or by V8 — made by another
// node).
const [bundle] = result.outputFiles;
// Less to read and compile at every start; logs carry messages, not stack traces. The function is
// assigned so that the minifier keeps it, then unwrapped.
const assigned = "module.exports=";
const minified = await transform(
  `${assigned}function (exports, require, module, __filename, __dirname) {${lazyNamespaces(bundle.text)}\n}`,
  { minify: true, legalComments: "none", target: "node20", format: "cjs" },
);
if (!minified.code.startsWith(assigned)) throw new Error("unexpected minified bundle");
const source = `(${minified.code.slice(assigned.length).trimEnd().replace(/;$/, "")})`;
const hash = createHash("sha256").update(source).digest("hex").slice(0, 32);
const loader = `"use strict";
// Generated by apps/agent-server/build.mjs: the agent-server bundle and its code-cache loader.
const SOURCE_HASH = ${JSON.stringify(hash)};
const SOURCE = ${JSON.stringify(source)};
/** A first conversation, as a sandbox's first claim makes it: create, run, follow, send, read. */
async function firstConversation(port, dir) {
  const base = "http://127.0.0.1:" + port;
  const headers = { "content-type": "application/json", "x-session-api-key": "code-cache" };
  const call = (method, path, body) =>
    fetch(base + path, { method, headers, body: body && JSON.stringify(body) }).then((r) => r.json());
  const text = (t) => ({ role: "user", content: [{ type: "text", text: t }] });
  const conversation = await call("POST", "/api/conversations", {
    agent: { kind: "shell" },
    workspace: { working_dir: dir },
    initial_message: { ...text("true"), run: true },
  });
  const events = "/api/conversations/" + conversation.id + "/events";
  await new Promise((resolve) => {
    const socket = process.getBuiltinModule("node:net").connect(port, "127.0.0.1", () =>
      socket.write(
        "GET /sockets/events/" + conversation.id + "?session_api_key=code-cache&resend_mode=all HTTP/1.1\\r\\n" +
          "Host: 127.0.0.1\\r\\nConnection: Upgrade\\r\\nUpgrade: websocket\\r\\n" +
          "Sec-WebSocket-Version: 13\\r\\nSec-WebSocket-Key: Y29kZS1jYWNoZS1rZXk=\\r\\n\\r\\n",
      ),
    );
    socket.once("data", () => setTimeout(() => { socket.destroy(); resolve(); }, 50));
    socket.once("error", resolve);
  });
  for (let tries = 0; tries < 100; tries++) {
    const page = await call("GET", events + "/search?kind=MessageEvent&source=agent&limit=10");
    if (page.items && page.items.length > 0) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  await call("POST", events, { ...text("cached"), run: false });
  await call("GET", "/api/conversations/" + conversation.id);
}
(() => {
  const fs = process.getBuiltinModule("node:fs");
  const vm = process.getBuiltinModule("node:vm");
  const cacheFile = __filename.replace(/\\.js$/, "") + ".cache";
  // The cache file: this bundle's hash and the data's length (a header of fixed size), then V8's
  // data. V8 checks neither (it compares the source's length, and damaged data can crash node);
  // the data is as trusted as the bundle beside it, written the same way (write, then rename).
  const HEADER = SOURCE_HASH.length + 12;
  const headerOf = (length) => SOURCE_HASH + String(length).padStart(12, "0");
  if (process.argv[2] === "--write-code-cache") {
    const script = new vm.Script(SOURCE, { filename: __filename });
    const writeCache = () => {
      const data = script.createCachedData();
      const temporary = cacheFile + "." + process.pid + ".tmp";
      fs.writeFileSync(temporary, Buffer.concat([Buffer.from(headerOf(data.length), "latin1"), data]));
      fs.renameSync(temporary, cacheFile);
    };
    // V8 caches what it has compiled when asked: right after the compile that is the top level
    // only, and a sandbox's first conversation would compile the rest (its API, validation, the
    // agent, the events socket) while someone waits. So the bundle runs once here, on loopback in
    // a throwaway directory, through a first conversation, and the cache is made after it.
    const os = process.getBuiltinModule("node:os");
    const path = process.getBuiltinModule("node:path");
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "agent-server-cache-"));
    const done = () => {
      writeCache();
      fs.rmSync(dir, { recursive: true, force: true });
      process.exit(0);
    };
    // Whatever ran by then is cached; a first conversation that cannot run here (no shell)
    // leaves a smaller cache, never a failed build.
    setTimeout(done, 10000).unref();
    const stdoutWrite = process.stdout.write.bind(process.stdout);
    let listened;
    const port = new Promise((resolve) => (listened = resolve));
    process.stdout.write = (chunk, ...rest) => {
      if (String(chunk).startsWith('{"event":"listening"')) return listened(JSON.parse(String(chunk)).port) ?? true;
      return stdoutWrite(chunk, ...rest);
    };
    process.argv = [process.argv[0], __filename, "--port", "0", "--host", "127.0.0.1"];
    Object.assign(process.env, {
      SESSION_API_KEY: "code-cache",
      DATA_DIR: path.join(dir, "data"),
      WORKSPACE_DIR: dir,
      LOG_LEVEL: "silent",
    });
    script.runInThisContext()(exports, require, module, __filename, __dirname);
    port.then((at) => firstConversation(at, dir)).then(done, done);
    return;
  }
  let cachedData;
  let cache = "absent";
  try {
    const file = fs.readFileSync(cacheFile);
    const header = file.toString("latin1", 0, HEADER);
    cache = header.startsWith(SOURCE_HASH) ? "refused" : "stale";
    if (header === headerOf(file.length - HEADER)) cachedData = file.subarray(HEADER);
  } catch {}
  const script = new vm.Script(SOURCE, { filename: __filename, cachedData });
  if (cachedData) cache = script.cachedDataRejected ? "refused" : "used";
  if (process.argv[2] === "--code-cache-status") {
    process.stdout.write(cache + "\\n");
    return;
  }
  script.runInThisContext()(exports, require, module, __filename, __dirname);
})();
`;

// Write-then-rename: a process starting the bundle meanwhile sees the old file or the new one.
mkdirSync(new URL("./dist/", import.meta.url), { recursive: true });
// apps/agent-server/package.json says "module" (for the sources); the bundle beside this is not.
writeFileSync(new URL("./dist/package.json", import.meta.url), '{"type":"commonjs"}\n');
const temporary = `${outfile}.${process.pid}.tmp`;
writeFileSync(temporary, loader);
renameSync(temporary, outfile);
execFileSync(process.execPath, [outfile, "--write-code-cache"], { stdio: "inherit" });

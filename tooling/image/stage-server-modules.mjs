// Copies the packages the control-plane bundle loads at run time (its esbuild externals and
// everything they depend on) from this checkout's node_modules into <dest>/node_modules, for the
// server image. Copying keeps the native modules exactly as they were compiled here (same node,
// same glibc as the image's base) and needs no registry. Install-time helpers, tests, docs,
// source maps and native build leftovers stay behind.
//
// Usage: node tooling/image/stage-server-modules.mjs <dest>
import { cpSync, existsSync, readFileSync, realpathSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { bundleOptions } from "../../apps/server/bundle.mjs";

const root = fileURLToPath(new URL("../..", import.meta.url));
const serverDir = path.join(root, "apps/server");

// The bundle's externals (apps/server/bundle.mjs), but pg's optional native binding: never installed.
const ENTRY_PACKAGES = bundleOptions.external.filter((name) => name !== "pg-native");

// Only needed while installing (downloading prebuilt binaries, compiling addons).
const INSTALL_ONLY = new Set(["prebuild-install", "node-gyp", "nan", "buildcheck"]);

const DROPPED_TOP_DIRS = new Set([
  "node_modules",
  "test",
  "tests",
  "__tests__",
  "example",
  "examples",
  "docs",
  "benchmark",
  "benchmarks",
  ".github",
]);

function main() {
  const dest = process.argv[2];
  if (!dest) {
    console.error("usage: node tooling/image/stage-server-modules.mjs <dest>");
    process.exit(2);
  }
  const packages = collectPackages();
  for (const pkgDir of packages) {
    const relative = path.relative(root, pkgDir);
    cpSync(pkgDir, path.join(dest, relative), {
      recursive: true,
      filter: (source) => keep(pkgDir, source),
    });
  }
  console.error(`[stage-server-modules] staged ${packages.length} packages into ${dest}`);
}

/** The dependency closure of the entry packages, as directories below the repository root. */
function collectPackages() {
  const seen = new Set();
  const queue = ENTRY_PACKAGES.map((name) => ({ name, from: serverDir, optional: false }));
  while (queue.length > 0) {
    const { name, from, optional } = queue.shift();
    const pkgDir = resolvePackage(name, from);
    if (pkgDir === null) {
      if (optional) continue;
      throw new Error(`${name} (needed from ${path.relative(root, from) || "."}) is not installed`);
    }
    if (seen.has(pkgDir)) continue;
    seen.add(pkgDir);
    const manifest = JSON.parse(readFileSync(path.join(pkgDir, "package.json"), "utf8"));
    const optionalNames = new Set([
      ...Object.keys(manifest.optionalDependencies ?? {}),
      ...Object.entries(manifest.peerDependenciesMeta ?? {})
        .filter(([, meta]) => meta?.optional)
        .map(([dep]) => dep),
    ]);
    const deps = new Set([
      ...Object.keys(manifest.dependencies ?? {}),
      ...Object.keys(manifest.optionalDependencies ?? {}),
      ...Object.keys(manifest.peerDependencies ?? {}),
    ]);
    for (const dep of deps) {
      if (INSTALL_ONLY.has(dep)) continue;
      queue.push({ name: dep, from: pkgDir, optional: optionalNames.has(dep) });
    }
  }
  return [...seen].sort();
}

/** Node's lookup: <dir>/node_modules/<name>, walking up to the repository root. */
function resolvePackage(name, from) {
  let dir = from;
  for (;;) {
    const candidate = path.join(dir, "node_modules", name);
    if (existsSync(path.join(candidate, "package.json"))) {
      const real = realpathSync(candidate);
      if (!real.startsWith(path.join(root, "node_modules"))) {
        throw new Error(`${name} resolves outside node_modules (${real}); it cannot be staged`);
      }
      return real;
    }
    if (path.resolve(dir) === path.resolve(root)) return null;
    dir = path.dirname(dir);
  }
}

function keep(pkgDir, source) {
  const relative = path.relative(pkgDir, source);
  if (relative === "") return true;
  const parts = relative.split(path.sep);
  if (parts.length > 1 || statSync(source).isDirectory()) {
    if (DROPPED_TOP_DIRS.has(parts[0])) return false;
    // Sources of native addons (compiled already) are not loaded at run time.
    if (
      (parts[0] === "deps" || parts[0] === "src") &&
      existsSync(path.join(pkgDir, "binding.gyp"))
    ) {
      return false;
    }
  }
  const name = parts[parts.length - 1];
  const buildAt = parts.indexOf("build");
  // A node-gyp output directory: only the compiled addons are needed.
  if (buildAt !== -1) {
    const buildDir = path.join(pkgDir, ...parts.slice(0, buildAt + 1));
    if (existsSync(path.join(buildDir, "Release")) && source !== buildDir) {
      if (statSync(source).isDirectory()) return !["obj", "obj.target", ".deps"].includes(name);
      return name.endsWith(".node") && name !== "test_extension.node";
    }
  }
  if (/^(licen[cs]e|copying|notice)/i.test(name)) return true;
  // Docs, source maps, type declarations and build inputs are never loaded.
  return !/\.(md|markdown|map|ts|a|o|gyp|gypi)$/i.test(name);
}

main();

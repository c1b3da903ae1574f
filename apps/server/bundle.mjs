import { nativeSpread } from "./native-spread.mjs";

// How the control plane is bundled (build.mjs, and the test harness's ingest worker): ESM for
// Node 20; native and asset-carrying modules stay external.
export const bundleOptions = {
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
  plugins: [nativeSpread],
  logLevel: "warning",
};

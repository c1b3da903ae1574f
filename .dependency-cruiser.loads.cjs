// What a file loads at run time: the imports left after TypeScript erases type-only ones (the main
// rules, in .dependency-cruiser.cjs, count those too). Run on the entry points named below.
const { options } = require("./.dependency-cruiser.cjs");

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "ingest-worker-stays-light",
      comment:
        "The core's ingest worker (a worker thread) does not load the runtimes: of the runtime package it uses only errorMessage, through its subpath.",
      severity: "error",
      from: { path: "^packages/core/src/events/ingest/serve\\.ts$" },
      to: {
        path: "^packages/runtime/",
        pathNot: "^packages/runtime/src/error-message\\.ts$",
        reachable: true,
      },
    },
  ],
  options: {
    ...options,
    tsPreCompilationDeps: false,
    tsConfig: { fileName: "tsconfig.base.json" },
  },
};

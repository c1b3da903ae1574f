// Which package may import which, and a few borders inside the core (`npm run lint:deps`, part of
// `npm run lint` and so of `npm test`). The direction: apps → core → db / runtime /
// agent-contracts / egress; the agent server, the client and the command line stand apart.
// bench/ and tooling/ are tooling: they may use any package. What a file loads at run time (type
// imports left out) is checked by .dependency-cruiser.loads.cjs.

const coreDomains = "sandboxes|conversations|events|webhooks|users|settings|sandbox-specs";
const notATest = "\\.test\\.ts$|/test/";

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "workspace-import-unresolved",
      comment:
        "An import of a workspace package that does not resolve would escape every rule below.",
      severity: "error",
      from: {},
      to: { couldNotResolve: true, path: "^@sandbox-server/" },
    },
    {
      name: "package-by-name",
      comment:
        "Another package is imported by its name (what its package.json exports), never by a relative path into its files.",
      severity: "error",
      from: { path: "^(packages|apps)/([^/]+)/" },
      to: { path: "^(packages|apps)/", pathNot: "^$1/$2/", dependencyTypes: ["local"] },
    },
    {
      name: "apps-are-not-imported",
      comment: "Apps are deployables: no package imports one, and no app imports another.",
      severity: "error",
      from: { path: "^(packages|apps)/([^/]+)/" },
      to: { path: "^apps/", pathNot: "^$1/$2/" },
    },
    {
      name: "leaf-packages",
      comment: "agent-contracts and egress import no workspace package: the others build on them.",
      severity: "error",
      from: { path: "^packages/(agent-contracts|egress)/" },
      to: { path: "^packages/", pathNot: "^packages/$1/" },
    },
    {
      name: "db-below-core",
      comment:
        "The store knows no runtime and no control plane; it stores the egress policy's shapes, so it may use egress.",
      severity: "error",
      from: { path: "^packages/db/" },
      to: { path: "^packages/", pathNot: "^packages/(db|egress)/" },
    },
    {
      name: "runtime-below-core",
      comment:
        "The runtime runs sandboxes; it knows nothing of the store or of the control plane (egress and agent-contracts it may use).",
      severity: "error",
      from: { path: "^packages/runtime/" },
      to: { path: "^packages/(db|core|client)/" },
    },
    {
      name: "core-below-client",
      comment: "The core serves the client's types; it never imports the client.",
      severity: "error",
      from: { path: "^packages/core/" },
      to: { path: "^packages/client/" },
    },
    {
      name: "agent-server-apart",
      comment:
        "The agent server runs inside each sandbox as one bundled file: of the control plane it shares only the wire contracts.",
      severity: "error",
      from: { path: "^apps/agent-server/" },
      to: { path: "^packages/", pathNot: "^packages/agent-contracts/" },
    },
    {
      name: "cli-through-client",
      comment: "The command line talks to a server over HTTP, through the published client.",
      severity: "error",
      from: { path: "^apps/cli/" },
      to: { path: "^packages/", pathNot: "^packages/client/" },
    },
    {
      name: "client-takes-types-only",
      comment:
        "The published client bundles nothing of the private packages: from the core it takes the router's types (type-only imports); its generation scripts may run the core.",
      severity: "error",
      from: { path: "^packages/client/", pathNot: "^packages/client/scripts/" },
      to: { path: "^packages/(?!client/)", dependencyTypesNot: ["type-only"] },
    },
    {
      name: "client-from-core-only",
      comment: "The client's types come from the core's router; no other private package.",
      severity: "error",
      from: { path: "^packages/client/" },
      to: { path: "^packages/(?!client/|core/)" },
    },
    {
      name: "core-infrastructure-below-domains",
      comment: `The core's shared parts (shared, replicas, idempotency, agent-client) import no domain folder (${coreDomains}).`,
      severity: "error",
      from: {
        path: "^packages/core/src/(shared|replicas|idempotency|agent-client)/",
        pathNot: notATest,
      },
      to: { path: `^packages/core/src/(${coreDomains})/` },
    },
    {
      name: "sandbox-verbs-composed-by-owners",
      comment:
        "Sandbox lifecycle verbs (sandboxes/service) are composed only by conversations (a conversation may start or remove its sandbox), users (disabling a user stops theirs) and sandbox specs (a spec's default egress policy is read as a sandbox's); webhooks and events hear of sandboxes through listeners.",
      severity: "error",
      from: {
        path: "^packages/core/src/(?!sandboxes/|conversations/|users/|sandbox-specs/)[^/]+/",
        pathNot: notATest,
      },
      to: { path: "^packages/core/src/sandboxes/service/" },
    },
    {
      name: "no-circular",
      comment:
        "Files that import each other in a loop cannot be read, tested or moved one at a time.",
      severity: "error",
      from: { pathNot: notATest },
      to: { circular: true },
    },
  ],
  options: {
    includeOnly: "^(apps|packages|bench|tooling)/|^@sandbox-server/",
    exclude: { path: "(^|/)(dist|node_modules)/" },
    doNotFollow: { path: "node_modules" },
    // Type-only imports count: they tie packages at build time (the client's router types).
    tsPreCompilationDeps: true,
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["@sandbox-server/source", "import", "types", "default"],
      extensions: [".ts", ".mts", ".js", ".mjs"],
    },
  },
};

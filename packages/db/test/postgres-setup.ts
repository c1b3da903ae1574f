import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { TestProject } from "vitest/node";

const postgresTooling = fileURLToPath(new URL("../../../tooling/postgres/", import.meta.url));

declare module "vitest" {
  export interface ProvidedContext {
    /** A PostgreSQL database the tests may create databases beside; "" when there is none. */
    testDatabaseUrl: string;
    /** The directory of the cluster this run started (tooling/postgres/postgres-ctl.sh), or "". */
    pgTestDir: string;
    /** CI=true: the PostgreSQL variants must run (fail without a server, never skip). */
    pgRequired: boolean;
  }
}

/**
 * The store tests run against SQLite and PostgreSQL. PostgreSQL comes from TEST_DATABASE_URL;
 * without it, CI=true starts a throwaway cluster (tooling/postgres/postgres-up.sh) and stops it afterwards,
 * and a local run leaves the PostgreSQL variants out with a warning.
 */
export default function setup(project: TestProject): () => void {
  const required = process.env.CI === "true";
  let url = process.env.TEST_DATABASE_URL ?? "";
  let dir = "";
  if (!url && required) {
    const out = execFileSync("bash", [`${postgresTooling}postgres-up.sh`], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
    });
    const vars = Object.fromEntries(
      out
        .split("\n")
        .filter((line) => line.includes("="))
        .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]),
    );
    url = vars.TEST_DATABASE_URL ?? "";
    dir = vars.PG_TEST_DIR ?? "";
  }
  if (!url && !required) {
    console.warn(
      '[db tests] TEST_DATABASE_URL is not set: the PostgreSQL variants of the store tests are left out (eval "$(bash tooling/postgres/postgres-up.sh)" && export TEST_DATABASE_URL to run them)',
    );
  }
  project.provide("testDatabaseUrl", url);
  project.provide("pgTestDir", dir);
  project.provide("pgRequired", required);
  return () => {
    if (dir)
      execFileSync("bash", [`${postgresTooling}postgres-ctl.sh`, dir, "down"], {
        stdio: "inherit",
      });
  };
}

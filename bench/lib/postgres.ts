import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));

export interface BenchPostgres {
  url: string;
  stop(): void;
}

/**
 * A PostgreSQL for figures that compare the two stores: BENCH_DATABASE_URL when set, else a
 * throwaway cluster from tooling/postgres (removed by `stop`); null when neither can be had.
 */
export function benchPostgres(log: (line: string) => void): BenchPostgres | null {
  if (process.env.BENCH_DATABASE_URL) {
    return { url: process.env.BENCH_DATABASE_URL, stop: () => {} };
  }
  try {
    const out = execFileSync("bash", ["tooling/postgres/postgres-up.sh"], {
      cwd: root,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    });
    const value = (key: string) => new RegExp(`^${key}=(.*)$`, "m").exec(out)?.[1];
    const url = value("TEST_DATABASE_URL");
    const dir = value("PG_TEST_DIR");
    if (!url || !dir) return null;
    return {
      url,
      stop: () => {
        execFileSync("bash", ["tooling/postgres/postgres-ctl.sh", dir, "down"], {
          cwd: root,
          stdio: "ignore",
        });
      },
    };
  } catch (error) {
    log(`no PostgreSQL for the bench: ${(error as Error).message.split("\n")[0]}`);
    return null;
  }
}

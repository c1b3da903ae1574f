/**
 * `npm run bench`: every figure in turn against the built bundles (apps/server/dist,
 * apps/agent-server/dist), then bench/results/<date>.json and the table in README.md.
 */

import { density } from "./figures/density";
import { firstReply } from "./figures/first-reply";
import { listing } from "./figures/listing";
import { pauseResume } from "./figures/pause-resume";
import { proxyOverhead } from "./figures/proxy-overhead";
import { readThroughput } from "./figures/read-throughput";
import { sandboxStart } from "./figures/sandbox-start";
import { DOCKER_IMAGE, dockerUnavailable } from "./lib/docker";
import type { BenchContext, FigureResult } from "./lib/figure";
import { describeMachine, updateReadme, writeResults } from "./lib/report";

const figures = [
  proxyOverhead,
  sandboxStart,
  pauseResume,
  firstReply,
  listing,
  readThroughput,
  density,
];

const started = performance.now();
const log = (line: string) => {
  process.stdout.write(
    `[bench ${((performance.now() - started) / 1000).toFixed(0).padStart(3)}s] ${line}\n`,
  );
};
const dockerSkip = await dockerUnavailable();
log(dockerSkip ? `Docker figures: ${dockerSkip}` : `Docker figures run on ${DOCKER_IMAGE}`);
const ctx: BenchContext = { dockerSkip, log };

// BENCH_ONLY=proxyOverhead,listing runs some figures and prints them without writing any file.
const only = process.env.BENCH_ONLY?.split(",");
const results: FigureResult[] = [];
for (const figure of figures.filter((f) => !only || only.includes(f.name))) {
  log(`${figure.name}…`);
  results.push(await figure(ctx));
}

if (only) {
  for (const row of results.flatMap((r) => r.rows))
    log(`${row.figure} ${row.measure}: ${row.value}`);
  process.exit(0);
}

const date = new Date().toISOString().slice(0, 10);
const machine = describeMachine();
const file = writeResults(
  date,
  {
    date: new Date().toISOString(),
    machine,
    node: process.version,
    runtimes: { process: "measured", docker: dockerSkip ?? `measured (${DOCKER_IMAGE})` },
    duration_s: Math.round((performance.now() - started) / 1000),
  },
  results,
);
updateReadme(
  date,
  machine,
  file,
  results.flatMap((r) => r.rows),
);
log(`wrote ${file} and the README table`);
for (const row of results.flatMap((r) => r.rows)) {
  const verdict = row.met === undefined ? "" : row.met ? "  [met]" : "  [MISSED]";
  log(`${row.figure} (${row.runtime}) ${row.measure}: ${row.value}${verdict}`);
}

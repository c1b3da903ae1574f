import path from "node:path";
import type { Reporter, TestModule } from "vitest/node";
import type { FaultFigures } from "./acknowledged";

declare module "vitest" {
  interface TaskMeta {
    /** Set by fault tests (`task.meta.faultFigures = ...`): printed in the summary's table. */
    faultFigures?: FaultFigures[];
  }
}

/**
 * After vitest's own summary, one line per group (a group is a test file, named after it):
 * `<group>: N passed, N failed`, then the same for the whole suite. A file whose hooks failed
 * counts at least one failure even when no test ran. Then the fault tests' figures, one row per
 * scenario: operations acknowledged before the fault, lost or duplicated after it, unanswered, and
 * (for sends) refused ones that were delivered all the same.
 */
export default class GroupSummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const lines: string[] = [];
    const figures: FaultFigures[] = [];
    let totalPassed = 0;
    let totalFailed = 0;
    const sorted = [...testModules].sort((a, b) => a.moduleId.localeCompare(b.moduleId));
    for (const module of sorted) {
      const group = path.basename(module.moduleId).replace(/\.test\.ts$/, "");
      let passed = 0;
      let failed = 0;
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === "passed") passed++;
        else if (state === "failed") failed++;
        figures.push(...(test.meta().faultFigures ?? []));
      }
      if (failed === 0 && (module.state() === "failed" || module.errors().length > 0)) failed = 1;
      totalPassed += passed;
      totalFailed += failed;
      lines.push(`${group}: ${passed} passed, ${failed} failed`);
    }
    lines.push(`reliability: ${totalPassed} passed, ${totalFailed} failed`);
    if (figures.length > 0) lines.push("", ...figuresTable(figures));
    process.stdout.write(`\n${lines.join("\n")}\n`);
  }
}

function figuresTable(figures: FaultFigures[]): string[] {
  const header = ["fault", "acknowledged", "lost", "duplicated", "unanswered", "refused, yet done"];
  const rows = figures.map((f) => [
    f.scenario,
    String(f.acknowledged),
    String(f.lost),
    String(f.duplicated),
    String(f.unanswered),
    f.refusedYetDone === undefined ? "-" : String(f.refusedYetDone),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) =>
    `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join(" | ")} |`;
  return [line(header), `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`, ...rows.map(line)];
}

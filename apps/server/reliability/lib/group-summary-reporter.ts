import path from "node:path";
import type { Reporter, TestModule } from "vitest/node";

/**
 * After vitest's own summary, one line per group (a group is a test file, named after it):
 * `<group>: N passed, N failed`, then the same for the whole suite. A file whose hooks failed
 * counts at least one failure even when no test ran.
 */
export default class GroupSummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const lines: string[] = [];
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
      }
      if (failed === 0 && (module.state() === "failed" || module.errors().length > 0)) failed = 1;
      totalPassed += passed;
      totalFailed += failed;
      lines.push(`${group}: ${passed} passed, ${failed} failed`);
    }
    lines.push(`reliability: ${totalPassed} passed, ${totalFailed} failed`);
    process.stdout.write(`\n${lines.join("\n")}\n`);
  }
}

import type { EgressDenial } from "@sandbox-server/egress";
import { describe, expect, it } from "vitest";
import { DenialReporter, type RefusedDestination } from "./refused-destinations";

/** The reporter's arithmetic on counters as `readRefused` gives them (the kernel's side is in refusal-gate.test.ts). */
describe("DenialReporter.reportRefused", () => {
  const policy = { allowInternet: false, allowOut: [], denyOut: [] };
  const at = (packets: number, expires: number | null = 600): RefusedDestination[] => [
    { address: "192.0.2.7", port: 443, packets, expires },
  ];
  const setup = () => {
    const clock = { now: Date.parse("2030-01-01T00:00:00Z") };
    const reporter = new DenialReporter(
      () => undefined,
      () => clock.now,
    );
    const denials: EgressDenial[] = [];
    reporter.listen((denial) => denials.push(denial));
    return { clock, reporter, denials };
  };

  it("reports each refused packet once: the growth of a destination's counter", () => {
    const { clock, reporter, denials } = setup();
    reporter.reportRefused("sb_1", at(2), policy);
    expect(denials).toHaveLength(2);
    expect(denials[0]).toMatchObject({
      destination: "192.0.2.7:443",
      rule: "non-public range (reserved)",
    });
    clock.now += 5_000;
    reporter.reportRefused("sb_1", at(2, 595), policy);
    expect(denials).toHaveLength(2);
    clock.now += 5_000;
    reporter.reportRefused("sb_1", at(3), policy);
    expect(denials).toHaveLength(3);
  });

  it("counts an element that expired and came back from zero", () => {
    const { clock, reporter, denials } = setup();
    reporter.reportRefused("sb_1", at(4), policy);
    // Lower: surely a new element, whenever read.
    clock.now += 5_000;
    reporter.reportRefused("sb_1", at(1), policy);
    expect(denials).toHaveLength(5);
    // As high, read past the time the old one surely lived: a new one too.
    clock.now += 11 * 60_000;
    reporter.reportRefused("sb_1", at(1), policy);
    expect(denials).toHaveLength(6);
    // As high within it: the same element, nothing new.
    clock.now += 60_000;
    reporter.reportRefused("sb_1", at(1, 540), policy);
    expect(denials).toHaveLength(6);
  });

  it("passes on at most twenty denials of a sandbox a minute", () => {
    const { clock, reporter, denials } = setup();
    reporter.reportRefused("sb_1", at(1_000_000), policy);
    expect(denials).toHaveLength(20);
    clock.now += 60_000;
    reporter.reportRefused("sb_1", at(1_000_003), policy);
    expect(denials).toHaveLength(23);
  });
});

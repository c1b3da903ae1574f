import { describe, expect, it } from "vitest";
import { formatMicros, nextInstant, parseTimestamp } from "./clock";

describe("clock", () => {
  it("hands out strictly increasing, fixed-width timestamps", () => {
    const instants = Array.from({ length: 1000 }, () => nextInstant());
    for (let i = 1; i < instants.length; i++) {
      expect(instants[i]?.micros).toBeGreaterThan(instants[i - 1]?.micros ?? 0);
      expect((instants[i]?.iso ?? "") > (instants[i - 1]?.iso ?? "")).toBe(true);
    }
    expect(instants[0]?.iso).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
  });

  it("round-trips through parseTimestamp", () => {
    const { iso, micros } = nextInstant();
    expect(parseTimestamp(iso)).toBe(micros);
    expect(formatMicros(micros)).toBe(iso);
  });

  it("formats any instant, whichever instant it formatted before", () => {
    const second = Date.UTC(2025, 0, 2, 3, 4, 5) * 1000;
    const cases: [number, string][] = [
      [second + 7, "2025-01-02T03:04:05.000007Z"],
      [second + 999_999, "2025-01-02T03:04:05.999999Z"],
      [second + 1_000_000, "2025-01-02T03:04:06.000000Z"],
      [second + 7, "2025-01-02T03:04:05.000007Z"],
      [second - 1, "2025-01-02T03:04:04.999999Z"],
    ];
    for (const [micros, iso] of cases) expect(formatMicros(micros)).toBe(iso);
  });

  it("reads naive timestamps as UTC, offsets, and fewer digits", () => {
    const utc = Date.UTC(2025, 0, 2, 3, 4, 5) * 1000;
    expect(parseTimestamp("2025-01-02T03:04:05")).toBe(utc);
    expect(parseTimestamp("2025-01-02T03:04:05.5")).toBe(utc + 500_000);
    expect(parseTimestamp("2025-01-02T03:04:05.123456789Z")).toBe(utc + 123_456);
    expect(parseTimestamp("2025-01-02T05:04:05+02:00")).toBe(utc);
    expect(parseTimestamp("2025-01-02")).toBe(Date.UTC(2025, 0, 2) * 1000);
    expect(parseTimestamp("yesterday")).toBeUndefined();
  });
});

import { describe, expect, it } from "vitest";
import { eventFrame } from "./frame-cap";

describe("eventFrame", () => {
  const event = {
    id: "e1",
    timestamp: "2026-11-23T12:00:00.000000Z",
    kind: "ObservationEvent",
    source: "environment",
    observation: { content: [{ type: "text", text: "x".repeat(2000) }] },
  };

  it("sends an event under the cap whole", () => {
    expect(JSON.parse(eventFrame(event, undefined, 10_000))).toEqual(event);
  });

  it("sends a placeholder naming the event when it is over the cap", () => {
    const frame = JSON.parse(eventFrame(event, undefined, 1000));
    expect(frame).toMatchObject({
      id: "e1",
      timestamp: event.timestamp,
      kind: "ObservationEvent",
      source: "environment",
      truncated: true,
    });
    expect(frame.original_size_bytes).toBe(Buffer.byteLength(JSON.stringify(event)));
    expect(frame).not.toHaveProperty("observation");
  });
});

import { describe, expect, it } from "vitest";
import { IncomingEvent } from "../contracts";
import { parseIncomingEvent } from "./parse-incoming-event";

const ok = {
  id: "evt_1",
  timestamp: "2025-01-01T00:00:00.000000",
  kind: "MessageEvent",
  source: "user",
};

/** Frames as an agent server (or a hostile sandbox) might send them, as JSON text. */
const frames: string[] = [
  JSON.stringify(ok),
  JSON.stringify({ ...ok, llm_message: { role: "user", content: [{ type: "text", text: "hi" }] } }),
  '{"x":1,"source":"agent","7":"seven","id":"a","extra":{"b":[1,2]},"kind":"K","timestamp":"t","z":null}',
  JSON.stringify({ ...ok, source: "" }),
  JSON.stringify({ ...ok, id: "" }),
  JSON.stringify({ ...ok, id: "i".repeat(128) }),
  JSON.stringify({ ...ok, id: "i".repeat(129) }),
  JSON.stringify({ ...ok, timestamp: "t".repeat(65) }),
  JSON.stringify({ ...ok, kind: "k".repeat(64) }),
  JSON.stringify({ ...ok, kind: "k".repeat(65) }),
  JSON.stringify({ ...ok, source: "s".repeat(33) }),
  JSON.stringify({ ...ok, id: 7 }),
  JSON.stringify({ ...ok, kind: null }),
  JSON.stringify({ id: "a", timestamp: "t", kind: "K" }),
  JSON.stringify({ ...ok, id: "😀".repeat(64) }),
  JSON.stringify({ ...ok, id: "😀".repeat(65) }),
  `{"id":"a","timestamp":"t","kind":"K","source":"s","__proto__":{"polluted":true}}`,
  `{"id":"a","timestamp":"t","kind":"K","source":"s","constructor":{"x":1}}`,
  JSON.stringify({ kind: "ServerErrorEvent", code: "X" }),
  JSON.stringify([ok]),
  "null",
  '"text"',
  "42",
  "{}",
];

describe("parseIncomingEvent", () => {
  it.each(frames)("decides %s as the schema does, with the same object", (text) => {
    const fast = parseIncomingEvent(JSON.parse(text));
    const schema = IncomingEvent.safeParse(JSON.parse(text));
    expect(fast.success).toBe(schema.success);
    if (fast.success && schema.success) {
      expect(JSON.stringify(fast.data)).toBe(JSON.stringify(schema.data));
      expect(Object.keys(fast.data)).toEqual(Object.keys(schema.data));
      expect(Object.getPrototypeOf(fast.data)).toBe(Object.getPrototypeOf(schema.data));
    } else {
      expect(fast.error?.issues).toEqual(schema.error?.issues);
    }
  });

  it("accepts the usual frame on its fast path (a copy, values shared)", () => {
    const frame = JSON.parse(frames[1] ?? "");
    const parsed = parseIncomingEvent(frame);
    expect(parsed.success).toBe(true);
    expect(parsed.data).not.toBe(frame);
    expect(parsed.data?.llm_message).toBe(frame.llm_message);
  });
});

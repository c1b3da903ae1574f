import { describe, expect, it } from "vitest";
import { redactUrl, splitCredentials } from "./url-credentials";

describe("redactUrl", () => {
  it("hides a password, or a lone user name, and leaves other URLs as given", () => {
    expect(redactUrl("https://user:pa55@example.com/hook?x=1")).toBe(
      "https://user:***@example.com/hook?x=1",
    );
    expect(redactUrl("https://t0ken@example.com/hook")).toBe("https://***@example.com/hook");
    expect(redactUrl("https://example.com")).toBe("https://example.com");
  });
});

describe("splitCredentials", () => {
  it("moves credentials into a Basic Authorization header", () => {
    const { url, authorization } = splitCredentials("https://us%40er:p%3Ass@example.com/h");
    expect(url.href).toBe("https://example.com/h");
    expect(authorization).toBe(`Basic ${Buffer.from("us@er:p:ss").toString("base64")}`);
    expect(splitCredentials("https://example.com/h").authorization).toBeNull();
  });
});

import { describe, expect, it } from "vitest";
import { PortRoutes } from "./port-routes";

describe("PortRoutes", () => {
  it("remember a port's way for a while, per sandbox and port, until forgotten", () => {
    let clock = 1_000;
    const routes = new PortRoutes(() => clock, 10_000);
    routes.remember("sb_a", 80, "direct", "198.19.0.2");
    routes.remember("sb_a", 81, "tunnel", null);
    expect(routes.get("sb_a", 80)).toMatchObject({ path: "direct", address: "198.19.0.2" });
    expect(routes.get("sb_a", 82)).toBeNull();
    clock += 9_999;
    expect(routes.get("sb_a", 81)?.path).toBe("tunnel");
    clock += 1;
    expect(routes.get("sb_a", 81)).toBeNull();
    routes.remember("sb_a", 80, "direct", "198.19.0.2");
    routes.remember("sb_a", 81, "tunnel", null);
    routes.remember("sb_b", 80, "tunnel", null);
    routes.forget("sb_a");
    expect(routes.get("sb_a", 80)).toBeNull();
    expect(routes.get("sb_a", 81)).toBeNull();
    expect(routes.get("sb_b", 80)?.path).toBe("tunnel");
  });
});

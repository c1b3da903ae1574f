import { describe, expect, it } from "vitest";
import { type RestRoute, RouteTable } from "./route-table";

const route = (method: string, path: string): RestRoute => ({
  procedure: `${method} ${path}`,
  method,
  path,
  successStatus: 200,
});

const table = new RouteTable([
  route("GET", "/sandboxes/search"),
  route("POST", "/sandboxes"),
  route("GET", "/sandboxes/{id}"),
  route("DELETE", "/sandboxes/{id}"),
  route("POST", "/sandboxes/{id}/pause"),
  route("GET", "/users/me"),
  route("GET", "/users/{id}/keys"),
]);

describe("RouteTable", () => {
  it("prefers a literal segment to a parameter, per method", () => {
    expect(table.match("GET", "/sandboxes/search")).toMatchObject({
      kind: "found",
      route: { path: "/sandboxes/search" },
      params: [],
    });
    expect(table.match("GET", "/sandboxes/sb_1")).toMatchObject({
      route: { path: "/sandboxes/{id}" },
      params: [["id", "sb_1"]],
    });
    // DELETE has no literal `search`: the parameter takes it.
    expect(table.match("DELETE", "/sandboxes/search")).toMatchObject({
      route: { path: "/sandboxes/{id}" },
      params: [["id", "search"]],
    });
  });

  it("backtracks from a literal branch that leads nowhere to the parameter", () => {
    expect(table.match("GET", "/users/me/keys")).toMatchObject({
      route: { path: "/users/{id}/keys" },
      params: [["id", "me"]],
    });
  });

  it("keeps parameter values raw, ignores one trailing slash, never matches an empty parameter", () => {
    expect(table.match("POST", "/sandboxes/sb%2F1/pause/")).toMatchObject({
      params: [["id", "sb%2F1"]],
    });
    expect(table.match("POST", "/sandboxes//pause")).toEqual({ kind: "none" });
    expect(table.match("GET", "/nothing")).toEqual({ kind: "none" });
    expect(table.match("GET", "/sandboxes/a/b/c")).toEqual({ kind: "none" });
  });

  it("serves HEAD from GET and names the allowed methods of a known path", () => {
    expect(table.match("HEAD", "/users/me")).toMatchObject({ kind: "found" });
    expect(table.match("PUT", "/sandboxes")).toEqual({ kind: "wrong-method", allowed: ["POST"] });
    expect(table.match("POST", "/sandboxes/search")).toEqual({
      kind: "wrong-method",
      allowed: ["GET", "DELETE", "HEAD"],
    });
  });

  it("refuses a route declared twice or clashing parameter names", () => {
    expect(() => new RouteTable([route("GET", "/a/{x}"), route("GET", "/a/{x}")])).toThrow(
      /declared twice/,
    );
    expect(() => new RouteTable([route("GET", "/a/{x}"), route("POST", "/a/{y}")])).not.toThrow();
    expect(() => new RouteTable([route("GET", "/a/{x}"), route("GET", "/a/{y}/b")])).toThrow(
      /clashes/,
    );
  });
});

/** One REST operation, taken from a procedure's `meta.openapi`. */
export interface RestRoute {
  /** The procedure's path in the router, e.g. `sandboxes.pause`. */
  procedure: string;
  method: string;
  /** Path template below the API prefix, e.g. `/sandboxes/{id}/pause`. */
  path: string;
  successStatus: number;
  /** Whether it needs an API key (`meta.openapi.protect`): refused on the headers alone. */
  protect?: boolean;
  /** Query parameters a body method takes beside its body (`Meta.bodyQuery`). */
  bodyQuery?: string[];
}

export type FoundRoute = { kind: "found"; route: RestRoute; params: [name: string, raw: string][] };

export type RouteMatch =
  | FoundRoute
  /** The path exists, but not for this method. */
  | { kind: "wrong-method"; allowed: string[] }
  | { kind: "none" };

interface Node {
  literals: Map<string, Node>;
  param: { name: string; node: Node } | null;
  route: RestRoute | null;
  paramNames: string[];
}

function newNode(): Node {
  return { literals: new Map(), param: null, route: null, paramNames: [] };
}

/** `/a/b/` → `["a", "b"]`; one trailing slash is ignored. */
function segmentsOf(path: string): string[] {
  const trimmed = path.length > 1 && path.endsWith("/") ? path.slice(1, -1) : path.slice(1);
  return trimmed === "" ? [] : trimmed.split("/");
}

const PARAM = /^\{(\w+)\}$/;

/**
 * Routes by method, each method a trie of path segments built once at start. At every segment a
 * literal child is tried before the parameter child (`/sandboxes/search` before `/sandboxes/{id}`),
 * with backtracking, so matching costs a few map lookups per segment. Segments stay raw here; the
 * caller decodes parameter values.
 */
export class RouteTable {
  private readonly byMethod = new Map<string, Node>();

  constructor(private readonly routes: RestRoute[]) {
    for (const route of routes) this.add(route);
  }

  /** Every route, in the order given. */
  all(): readonly RestRoute[] {
    return this.routes;
  }

  private add(route: RestRoute): void {
    let root = this.byMethod.get(route.method);
    if (!root) {
      root = newNode();
      this.byMethod.set(route.method, root);
    }
    let node = root;
    const names: string[] = [];
    for (const segment of segmentsOf(route.path)) {
      const name = PARAM.exec(segment)?.[1];
      if (name) {
        if (node.param && node.param.name !== name) {
          throw new Error(
            `${route.method} ${route.path}: {${name}} clashes with {${node.param.name}}`,
          );
        }
        node.param ??= { name, node: newNode() };
        node = node.param.node;
        names.push(name);
      } else {
        let child = node.literals.get(segment);
        if (!child) {
          child = newNode();
          node.literals.set(segment, child);
        }
        node = child;
      }
    }
    if (node.route) throw new Error(`${route.method} ${route.path} is declared twice`);
    node.route = route;
    node.paramNames = names;
  }

  match(method: string, path: string): RouteMatch {
    const segments = segmentsOf(path);
    const found = this.find(method === "HEAD" ? "GET" : method, segments);
    if (found) return { kind: "found", ...found };
    const allowed: string[] = [];
    for (const other of this.byMethod.keys()) {
      if (this.find(other, segments)) allowed.push(other);
    }
    if (allowed.includes("GET")) allowed.push("HEAD");
    return allowed.length > 0 ? { kind: "wrong-method", allowed } : { kind: "none" };
  }

  private find(
    method: string,
    segments: string[],
  ): { route: RestRoute; params: [string, string][] } | null {
    const root = this.byMethod.get(method);
    if (!root) return null;
    const values: string[] = [];
    const node = descend(root, segments, 0, values);
    if (!node?.route) return null;
    return {
      route: node.route,
      params: node.paramNames.map((name, i) => [name, values[i] ?? ""]),
    };
  }
}

function descend(node: Node, segments: string[], index: number, values: string[]): Node | null {
  if (index === segments.length) return node.route ? node : null;
  const segment = segments[index] ?? "";
  const literal = node.literals.get(segment);
  if (literal) {
    const found = descend(literal, segments, index + 1, values);
    if (found) return found;
  }
  // A parameter is never empty: `/sandboxes//pause` matches nothing.
  if (node.param && segment !== "") {
    values.push(segment);
    const found = descend(node.param.node, segments, index + 1, values);
    if (found) return found;
    values.pop();
  }
  return null;
}

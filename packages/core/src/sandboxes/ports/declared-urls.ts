import type { SandboxRow } from "@sandbox-server/db";
import type { CoreDeps } from "../../deps";
import { iso } from "../../shared/time";
import { DEFAULT_PORT_URL_TTL_S, hasPortUrls, signPortUrl } from "../../state/port-urls";
import type { SandboxPortUrl } from "./contracts";

type SignDeps = Pick<CoreDeps, "portUrls" | "now">;

/** The declared ports of a sandbox, each with a URL working for the default hour. */
export function declaredPortUrls(
  deps: SignDeps,
  row: SandboxRow,
): { name: string; url: string; port: number }[] {
  if (!hasPortUrls(row.id)) return [];
  return row.portAccess.declared.map(({ name, port }) => ({
    name,
    port,
    url: portUrl(deps, row.id, port, DEFAULT_PORT_URL_TTL_S).url,
  }));
}

/** A URL to `port` of sandbox `id`, working for `ttlS` seconds from the core's now. */
export function portUrl(deps: SignDeps, id: string, port: number, ttlS: number): SandboxPortUrl {
  const signed = signPortUrl(deps.portUrls, id, port, deps.now() + ttlS * 1000);
  return { port, url: signed.url, expires_at: iso(signed.expiresAtMs) };
}

import { HttpStatus, procedureMetas } from "@sandbox-server/core";
import { type RestRoute, RouteTable } from "./route-table";

/** Every procedure that declares `meta.openapi`, as a REST route. */
export function restRouteTable(): RouteTable {
  const routes: RestRoute[] = [];
  for (const [procedure, meta] of procedureMetas()) {
    if (!meta.openapi) continue;
    routes.push({
      procedure,
      method: meta.openapi.method,
      path: meta.openapi.path,
      successStatus: meta.successStatus ?? HttpStatus.OK,
      protect: meta.openapi.protect ?? true,
      ...(meta.bodyQuery ? { bodyQuery: meta.bodyQuery } : {}),
    });
  }
  return new RouteTable(routes);
}

import path from "node:path";
import { type ServerProcess, startServerProcess } from "@sandbox-server/server/testing";

/**
 * The clone's own control plane on an empty data directory, with the key file it writes on first
 * start: what `npm start` gives a person (process runtime, so no image is needed).
 */
export function startCloneServer(cloneDir: string): Promise<ServerProcess> {
  return startServerProcess({
    bundle: path.join(cloneDir, "apps/server/dist/server.js"),
    adminKey: null,
  });
}

import { createRequire } from "node:module";
import type Dockerode from "dockerode";

let Client: typeof Dockerode | null = null;

/**
 * A Docker API client. dockerode is loaded by the first client made, not at import: with its gRPC
 * and protobuf dependencies it adds about 20 MiB to a process, which a control plane running
 * process sandboxes (and not asking whether Docker answers) never needs.
 */
export function createDockerClient(options?: Dockerode.DockerOptions): Dockerode {
  Client ??= createRequire(import.meta.url)("dockerode") as typeof Dockerode;
  return new Client(options);
}

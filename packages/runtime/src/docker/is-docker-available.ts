import { type DockerConnection, dockerConnectionFromHost } from "./docker-connection";
import { createDockerClient } from "./dockerode";

export interface DockerAvailabilityOptions {
  /** The endpoint, from `dockerConnectionFromHost(DOCKER_HOST, ...)`; default the local socket. */
  docker?: DockerConnection;
  /** How long a silent daemon is given (default 1500 ms). */
  timeoutMs?: number;
}

/** Whether a daemon answers a ping soon: the `auto` runtime choice must not hang on a dead socket. */
export async function isDockerAvailable(options: DockerAvailabilityOptions = {}): Promise<boolean> {
  const timeoutMs = options.timeoutMs ?? 1500;
  const docker = createDockerClient({
    ...(options.docker ?? dockerConnectionFromHost(undefined)),
    timeout: timeoutMs,
  });
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  try {
    const answered = docker.ping().then(
      () => true,
      () => false,
    );
    return await Promise.race([answered, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

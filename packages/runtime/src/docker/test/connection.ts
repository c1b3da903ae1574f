import { type DockerConnection, dockerConnectionFromHost } from "../docker-connection";

/**
 * The daemon the tests use: DOCKER_HOST and friends as the Docker CLI reads them, like the
 * server's env.ts (test code may read the environment; the library never does).
 */
export function testDockerConnection(): DockerConnection {
  const env = process.env;
  return dockerConnectionFromHost(env.DOCKER_HOST, {
    tlsVerify: (env.DOCKER_TLS_VERIFY ?? "") !== "",
    tls: (env.DOCKER_TLS ?? "") !== "",
    certPath: env.DOCKER_CERT_PATH,
    sshAuthSocket: env.SSH_AUTH_SOCK,
  });
}

export {
  DEFAULT_DOCKER_SOCKET,
  type DockerConnection,
  type DockerHostSettings,
  describeDockerConnection,
  dockerConnectionFromHost,
} from "./docker-connection";
export {
  type DockerHostConfig,
  describeDockerHost,
  parseDockerHosts,
} from "./docker-hosts";
export { DockerRuntime, type DockerRuntimeEvents } from "./docker-runtime";
export type { HostFirewallMode } from "./host-firewall";
export { type DockerAvailabilityOptions, isDockerAvailable } from "./is-docker-available";
export {
  containerNameFor,
  MANAGED_LABEL,
  OWNER_LABEL,
  SANDBOX_ID_LABEL,
  SPEC_LABEL,
  USER_LABEL_PREFIX,
} from "./labels";
export {
  MultiHostRuntime,
  type MultiHostRuntimeEvents,
  type MultiHostRuntimeOptions,
} from "./multi-host-runtime";
export {
  AGENT_SERVER_PORT,
  DEFAULT_RESOURCES,
  DEFAULT_SANDBOX_IMAGE,
  type DockerRuntimeOptions,
} from "./options";
export { networkNameFor } from "./sandbox-network";

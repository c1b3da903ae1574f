export { type AgentServerConfig, ConfigError, parseConfig } from "./env";
export { createLogger, type Logger, type LogLevel, silentLogger } from "./logger";
export {
  type AgentServer,
  type AgentServerOptions,
  type BoundAddress,
  createAgentServer,
} from "./server";
export { CLOSE_NOT_FOUND, CLOSE_UNAUTHORIZED } from "./sockets/events-socket";
export { VERSION } from "./version";

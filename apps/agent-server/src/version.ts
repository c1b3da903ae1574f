/** Reported by `/server_info`; replaced by the bundle's define when built. */
declare const __AGENT_SERVER_VERSION__: string | undefined;

export const VERSION =
  typeof __AGENT_SERVER_VERSION__ === "string" ? __AGENT_SERVER_VERSION__ : "0.1.0-dev";

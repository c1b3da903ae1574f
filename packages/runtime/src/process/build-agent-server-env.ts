export interface AgentServerEnvOptions {
  path: string;
  lang: string;
  home: string;
  dataDir: string;
  workspaceDir: string;
  sessionApiKey: string;
  /** The proxy variables of a sandbox whose egress has a proxy; spec and request env may override them. */
  network?: Record<string, string>;
  /** Spec and request env; may override PATH, HOME and LANG, nothing the runtime relies on. */
  extra: Record<string, string>;
  /** Variables the runtime needs to find the processes again (unisolated only). */
  marker?: Record<string, string>;
}

/**
 * The agent server's whole environment. Built from scratch rather than from the control plane's
 * own environment, so none of the control plane's secrets reach a sandbox.
 */
export function buildAgentServerEnv(options: AgentServerEnvOptions): Record<string, string> {
  return {
    PATH: options.path,
    HOME: options.home,
    LANG: options.lang,
    ...options.network,
    ...withoutExtraSessionKeys(options.extra),
    SESSION_API_KEY: options.sessionApiKey,
    DATA_DIR: options.dataDir,
    WORKSPACE_DIR: options.workspaceDir,
    ...options.marker,
  };
}

// The agent server also accepts OH_SESSION_API_KEYS_<n>; a sandbox has exactly one key, ours.
function withoutExtraSessionKeys(env: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).filter(([name]) => !name.startsWith("OH_SESSION_API_KEYS_")),
  );
}

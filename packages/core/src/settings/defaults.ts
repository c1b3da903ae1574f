import type { Settings, WebClientConfig } from "./contracts";

/** The agent a conversation gets when its create names none (see conversations). */
const DEFAULT_AGENT = "shell";

/** Everyone's settings: this server stores none per user (see `Settings`). */
export function defaultSettings(): Settings {
  return {
    language: "en",
    v1_enabled: true,
    agent: DEFAULT_AGENT,
    llm_model: null,
    llm_base_url: null,
    llm_api_key: null,
    llm_api_key_set: false,
    search_api_key: null,
    search_api_key_set: false,
    provider_tokens_set: {},
    confirmation_mode: false,
    security_analyzer: null,
    max_iterations: null,
    enable_default_condenser: false,
    condenser_max_size: null,
    mcp_config: null,
    disabled_skills: [],
    email: null,
    email_verified: null,
    git_user_name: null,
    git_user_email: null,
    enable_sound_notifications: false,
    enable_proactive_conversation_starters: false,
    user_consents_to_analytics: false,
    sandbox_grouping_strategy: "NO_GROUPING",
    secrets_store: { provider_tokens: {} },
    agent_settings: {
      agent: DEFAULT_AGENT,
      llm: { model: null, base_url: null, api_key: null },
      condenser: { enabled: false, max_size: null },
      mcp_config: null,
    },
    conversation_settings: {
      confirmation_mode: false,
      security_analyzer: null,
      max_iterations: null,
    },
    llm_profiles: { profiles: {}, active: null },
  };
}

/** A self-hosted, single-tenant ("oss") deployment with no integrations. */
export function webClientConfig(updatedAt: string): WebClientConfig {
  return {
    app_mode: "oss",
    posthog_client_key: null,
    feature_flags: {
      enable_billing: false,
      hide_llm_settings: false,
      enable_jira: false,
      enable_jira_dc: false,
      enable_linear: false,
      hide_users_page: false,
      hide_billing_page: false,
      hide_integrations_page: false,
      deployment_mode: "self_hosted",
      enable_onboarding: false,
    },
    providers_configured: [],
    maintenance_start_time: null,
    auth_url: null,
    recaptcha_site_key: null,
    faulty_models: [],
    error_message: null,
    updated_at: updatedAt,
    github_app_slug: null,
    gitlab_enabled: false,
    provider_default_hosts: {},
    slack_enabled: false,
  };
}

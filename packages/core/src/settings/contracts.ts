import { z } from "zod";

const Json = z.record(z.string(), z.unknown());

/**
 * `GET /settings`, in the shape of OpenHands' `GETSettingsModel` as far as its clients read it
 * (the web client, the CLI's login, the TypeScript CloudClient). This server keeps no per-user
 * settings, so the answer is the same for everyone: no LLM configured, no secrets set.
 */
export const Settings = z
  .object({
    language: z.string(),
    v1_enabled: z.boolean(),
    agent: z.string().describe("The agent a conversation gets when its create names none"),
    llm_model: z.string().nullable(),
    llm_base_url: z.string().nullable(),
    llm_api_key: z.string().nullable(),
    llm_api_key_set: z.boolean(),
    search_api_key: z.string().nullable(),
    search_api_key_set: z.boolean(),
    provider_tokens_set: z.record(z.string(), z.string().nullable()),
    confirmation_mode: z.boolean(),
    security_analyzer: z.string().nullable(),
    max_iterations: z.number().int().nullable(),
    enable_default_condenser: z.boolean(),
    condenser_max_size: z.number().int().nullable(),
    mcp_config: Json.nullable(),
    disabled_skills: z.array(z.string()),
    email: z.string().nullable(),
    email_verified: z.boolean().nullable(),
    git_user_name: z.string().nullable(),
    git_user_email: z.string().nullable(),
    enable_sound_notifications: z.boolean(),
    enable_proactive_conversation_starters: z.boolean(),
    user_consents_to_analytics: z.boolean().nullable(),
    sandbox_grouping_strategy: z.string(),
    secrets_store: z.object({ provider_tokens: Json }),
    agent_settings: z.object({
      agent: z.string(),
      llm: z.object({
        model: z.string().nullable(),
        base_url: z.string().nullable(),
        api_key: z.string().nullable(),
      }),
      condenser: z.object({ enabled: z.boolean(), max_size: z.number().int().nullable() }),
      mcp_config: Json.nullable(),
    }),
    conversation_settings: z.object({
      confirmation_mode: z.boolean(),
      security_analyzer: z.string().nullable(),
      max_iterations: z.number().int().nullable(),
    }),
    llm_profiles: z.object({ profiles: z.record(z.string(), Json), active: z.string().nullable() }),
  })
  .meta({ id: "Settings" });
export type Settings = z.infer<typeof Settings>;

const providers = [
  "github",
  "gitlab",
  "bitbucket",
  "bitbucket_data_center",
  "forgejo",
  "azure_devops",
];

/** `GET /web-client/config`: OpenHands' `WebClientConfig`, for its web client (no auth). */
export const WebClientConfig = z
  .object({
    app_mode: z.enum(["saas", "oss"]),
    posthog_client_key: z.string().nullable(),
    feature_flags: z.object({
      enable_billing: z.boolean(),
      hide_llm_settings: z.boolean(),
      enable_jira: z.boolean(),
      enable_jira_dc: z.boolean(),
      enable_linear: z.boolean(),
      hide_users_page: z.boolean(),
      hide_billing_page: z.boolean(),
      hide_integrations_page: z.boolean(),
      deployment_mode: z.enum(["cloud", "self_hosted"]).nullable(),
      enable_onboarding: z.boolean(),
    }),
    providers_configured: z.array(z.enum(providers)),
    maintenance_start_time: z.string().nullable(),
    auth_url: z.string().nullable(),
    recaptcha_site_key: z.string().nullable(),
    faulty_models: z.array(z.string()),
    error_message: z.string().nullable(),
    updated_at: z.string(),
    github_app_slug: z.string().nullable(),
    gitlab_enabled: z.boolean(),
    provider_default_hosts: z.record(z.string(), z.string()),
    slack_enabled: z.boolean(),
  })
  .meta({ id: "WebClientConfig" });
export type WebClientConfig = z.infer<typeof WebClientConfig>;

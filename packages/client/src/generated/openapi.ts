// Generated from the server's OpenAPI document by scripts/generate-openapi-types.ts.
// Do not edit: run `npm run generate -w @sandbox-server/client` after changing a procedure.

export interface paths {
  "/api/v1/sandboxes/search": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Search sandboxes
     * @description The caller's sandboxes, newest first, a page at a time (`limit` 1..100, `page_id` from the previous page's `next_page_id`). Filters: `status`, `sandbox_spec_id`, `label` (`key` or `key=value`).
     */
    get: operations["search_sandboxes_api_v1_sandboxes_search_get"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/sandboxes": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Read sandboxes by id
     * @description An array aligned with `id` (`id=a&id=b`, 1 to 100 ids), null where a sandbox is unknown or not yours. Without `id`: 422 (list with `GET /sandboxes/search`).
     */
    get: operations["batch_get_sandboxes_api_v1_sandboxes_get"];
    put?: never;
    /**
     * Start a sandbox
     * @description Answers at once with the sandbox STARTING; it becomes RUNNING when its agent server answers. The body may be absent or empty (with or without a JSON content type); `sandbox_spec_id` may be given in the query instead.
     */
    post: operations["start_sandbox_api_v1_sandboxes_post"];
    /**
     * Stop and remove a sandbox named in the query
     * @description `DELETE /sandboxes?sandbox_id=…`: the same as `DELETE /sandboxes/{id}`, for clients that send the id in the query only.
     */
    delete: operations["delete_sandbox_api_v1_sandboxes_delete"];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/sandboxes/{id}": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Read a sandbox
     * @description One of the caller's sandboxes: its status, `status_detail`, labels and, while RUNNING, `agent_server_url`, `exposed_urls` and `session_api_key`. Another user's sandbox is 404.
     */
    get: operations["get_sandbox_api_v1_sandboxes__id__get"];
    put?: never;
    post?: never;
    /**
     * Stop and remove a sandbox
     * @description Its conversations become archived (send-message answers 410). A `sandbox_id` query parameter, as OpenHands' SDK sends, must name the same sandbox (422 otherwise).
     */
    delete: operations["delete_sandbox_api_v1_sandboxes__id__delete"];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/sandboxes/{id}/pause": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Pause a sandbox
     * @description Freezes a RUNNING sandbox (`docker pause` or SIGSTOP): its processes stop, its state stays. Pausing a PAUSED sandbox succeeds and changes nothing; any other status is 409 with the current one.
     */
    post: operations["pause_sandbox_api_v1_sandboxes__sandbox_id__pause_post"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/sandboxes/{id}/resume": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Resume a paused sandbox
     * @description Also restarts a sandbox in ERROR. Waits until the agent server answers again.
     */
    post: operations["resume_sandbox_api_v1_sandboxes__sandbox_id__resume_post"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/sandboxes/{id}/timeout": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Set a sandbox's timeout
     * @description Allows `timeout_s` more seconds of active time from now, extending or shortening the timeout; what happens then is the sandbox's `on_timeout`. Time spent PAUSED does not count: a PAUSED sandbox's clock starts again when it is resumed. 422 beyond this server's maximum.
     */
    post: operations["set_sandbox_timeout_api_v1_sandboxes__sandbox_id__timeout_post"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/sandboxes/{id}/ports/{port}": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * A signed URL to a port of a sandbox
     * @description A URL that reaches whatever the sandbox serves on `port` (HTTP and WebSocket, any path, no API key) until `expires_at`. Opening it answers 401/403 once it has expired or for another sandbox or port, 404 once the sandbox is deleted, 409 while it is not RUNNING (unless it was created with `auto_resume`: then a PAUSED one is resumed), 502 when nothing listens on the port. The agent server's own port is 422: use `agent_server_url`.
     */
    get: operations["get_sandbox_port_api_v1_sandboxes__id__ports__port__get"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/sandboxes/{id}/settings/secrets": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Names of the secrets a sandbox may read
     * @description Authenticated with the sandbox's own session key (`X-Session-API-Key`), not an API key: 401 without a valid key of a RUNNING sandbox, 403 for another sandbox's key. Always an empty list: this server stores no user secrets.
     */
    get: operations["list_secret_names_api_v1_sandboxes__sandbox_id__settings_secrets_get"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/sandboxes/{id}/settings/secrets/{secret_name}": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * A secret's value, for the sandbox itself
     * @description Authenticated like the secret list. This server stores no user secrets, so a valid key gets 404 for every name (OpenHands' SDK reads 404 as no such secret).
     */
    get: operations["get_secret_value_api_v1_sandboxes__sandbox_id__settings_secrets__secret_name__get"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/sandboxes/{id}/network": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    /**
     * Change a sandbox's egress policy
     * @description Replaces the fields present (`allow_internet`, `allow_out`, `deny_out`) of a RUNNING or PAUSED sandbox's egress policy; new connections follow it at once. Any other status is 409 with the current one; a runtime that cannot change a policy live answers 501. An `allow_out` entry outside the server's SANDBOX_EGRESS_ALLOW is 422 naming it.
     */
    patch: operations["update_sandbox_network_api_v1_sandboxes__id__network_patch"];
    trace?: never;
  };
  "/api/v1/sandbox-specs/search": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List sandbox specs
     * @description The templates a sandbox can be started from, the built-in `default` spec among them, a page at a time; each states its runtime's `isolation`.
     */
    get: operations["search_sandbox_specs_api_v1_sandbox_specs_search_get"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/app-conversations": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List conversations, or read a batch of them by id
     * @description Without `ids`: a page of your conversations (filters, `sort_order`, paging). With `ids` (OpenHands' batch read, `ids=a&ids=b`): an array aligned with `ids`, each conversation as `GET /app-conversations/{id}` reads it, null where one is unknown or not yours.
     */
    get: operations["search_app_conversations_api_v1_app_conversations_get"];
    put?: never;
    /**
     * Create a conversation
     * @description Starts a sandbox (or uses `sandbox_id`), waits until it is RUNNING and the conversation exists on its agent server, delivers `initial_message` (which runs the agent unless it says `run: false`), and returns the conversation. The answer is also the conversation's start task (`status: READY`, id = conversation id), as OpenHands clients expect; a failed create answers the error and leaves the task in ERROR (`details.start_task_id`), readable at `GET /app-conversations/start-tasks?ids=`.
     */
    post: operations["start_app_conversation_api_v1_app_conversations_post"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/app-conversations/stream-start": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Create a conversation, answering every state of its start task
     * @description The same create as `POST /app-conversations`, answered (200) with the JSON array of every state its start task took, ending in READY or ERROR. OpenHands streams the array while it grows; here it is sent whole once the create has finished.
     */
    post: operations["stream_app_conversation_start_api_v1_app_conversations_stream_start_post"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/app-conversations/search": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Search conversations
     * @description OpenHands' search: the same filters and page as `GET /app-conversations` (`sandbox_id__eq`, `created_at__gte`, ... and `sort_order`, default CREATED_AT_DESC).
     */
    get: operations["search_app_conversations_api_v1_app_conversations_search_get"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/app-conversations/count": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Count conversations
     * @description How many of your conversations the search's filters match.
     */
    get: operations["count_app_conversations_api_v1_app_conversations_count_get"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/app-conversations/{id}": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Read a conversation, including its conversation_url
     * @description One of the caller's conversations with its sandbox's status, `execution_status` and, while the sandbox is RUNNING, `conversation_url` and `session_api_key` for talking to its agent server directly. Another user's conversation is 404.
     */
    get: operations["get_app_conversation_api_v1_app_conversations__id__get"];
    put?: never;
    post?: never;
    /**
     * Delete a conversation
     * @description Removes the conversation and its stored events. Its sandbox is deleted too when this conversation started it and no other live conversation is in it; otherwise the sandbox stays and its agent server forgets the conversation.
     */
    delete: operations["delete_app_conversation_api_v1_app_conversations__conversation_id__delete"];
    options?: never;
    head?: never;
    /**
     * Rename a conversation or change its OpenHands fields
     * @description Only the fields present change; `null` clears one. Answers the conversation as read afterwards.
     */
    patch: operations["update_app_conversation_api_v1_app_conversations__conversation_id__patch"];
    trace?: never;
  };
  "/api/v1/app-conversations/{conversation_id}/send-message": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Send message to conversation
     * @description Thin proxy: forwards the body unchanged to the conversation's agent server. Custom processing belongs in webhooks.
     */
    post: operations["send_message_to_conversation_api_v1_app_conversations__conversation_id__send_message_post"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/app-conversations/start-tasks": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Read start tasks by id
     * @description An array aligned with `ids` (`ids=a&ids=b`), null where a task is unknown or not yours. A task's id is the id of the conversation it creates.
     */
    get: operations["batch_get_app_conversation_start_tasks_api_v1_app_conversations_start_tasks_get"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/app-conversations/start-tasks/search": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Search start tasks
     * @description The caller's start tasks (each conversation create, with its progress to READY or ERROR), a page at a time, filtered by `conversation_id__eq` and `created_at__gte`.
     */
    get: operations["search_app_conversation_start_tasks_api_v1_app_conversations_start_tasks_search_get"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/app-conversations/start-tasks/count": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Count start tasks
     * @description How many of the caller's start tasks match the same filters as the search.
     */
    get: operations["count_app_conversation_start_tasks_api_v1_app_conversations_start_tasks_count_get"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/app-conversations/{id}/events": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List a conversation's events
     * @description The events the control plane has received from the conversation's agent server, oldest first by default. Available while the sandbox is paused and after the conversation is archived.
     */
    get: operations["search_app_conversation_events_api_v1_app_conversations__id__events_get"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/conversation/{conversation_id}/events/search": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Search a conversation's events (OpenHands' path)
     * @description The same stored events as `GET /app-conversations/{id}/events`, at the path and with the parameters OpenHands' clients use: `kind__eq`, `timestamp__gte`, `timestamp__lt`, `sort_order`, `page_id`, `limit`.
     */
    get: operations["search_events_api_v1_conversation__conversation_id__events_search_get"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/conversation/{conversation_id}/events/count": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Count a conversation's events
     * @description How many stored events of one of the caller's conversations match the same filters as the event search; also while its sandbox is paused and after it is archived.
     */
    get: operations["count_events_api_v1_conversation__conversation_id__events_count_get"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/webhooks": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List webhooks
     * @description The caller's webhooks, a page at a time. Secrets are never shown again after the create.
     */
    get: operations["search_webhooks_api_v1_webhooks_get"];
    put?: never;
    /**
     * Register a webhook
     * @description Events of the caller's conversations and sandboxes are POSTed to `url`, signed in the Standard Webhooks format (headers `webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64 HMAC-SHA256 of <id>.<timestamp>.<body>>`) with `secret` (`whsec_` + base64 of the key: verify with any `standardwebhooks` library). The secret is shown only in this answer. Credentials in `url` (`user:password@`) are sent as HTTP Basic authentication and shown as `***`. A `url` whose host is or resolves to a loopback, private, link-local, carrier-grade NAT, multicast, unspecified, broadcast, reserved or cloud-metadata address is refused with 422 (private networks are allowed when the server runs with WEBHOOK_ALLOW_PRIVATE_NETWORKS=true, except the control plane itself, sandboxes' agent servers and metadata addresses); every connection is checked again.
     */
    post: operations["create_webhook_api_v1_webhooks_post"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/webhooks/{id}": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Read a webhook
     * @description One of the caller's webhooks (without its secret). Another user's webhook is 404.
     */
    get: operations["get_webhook_api_v1_webhooks__id__get"];
    put?: never;
    post?: never;
    /**
     * Delete a webhook
     * @description Its pending deliveries are dropped.
     */
    delete: operations["delete_webhook_api_v1_webhooks__id__delete"];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/webhooks/{id}/deliveries": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List a webhook's deliveries
     * @description Newest first, with status, attempts and the last error of each.
     */
    get: operations["search_webhook_deliveries_api_v1_webhooks__id__deliveries_get"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/users": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Every user, oldest first (admins only)
     * @description Every user with their role and state; for admins only (403 otherwise). Keys are never shown.
     */
    get: operations["list_users_api_v1_users_get"];
    put?: never;
    /**
     * Create a user and their first API key (admins only)
     * @description Refused (409 UNISOLATED_MULTI_USER) while sandboxes run without isolation (process runtime without bubblewrap), unless the server was started with ALLOW_UNISOLATED_MULTI_USER=true.
     */
    post: operations["create_user_api_v1_users_post"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/users/{id}": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Read a user (admins only)
     * @description One user with their role and state; for admins only (403 otherwise).
     */
    get: operations["get_user_api_v1_users__id__get"];
    put?: never;
    post?: never;
    /**
     * Delete a user (admins only)
     * @description Their keys are refused at once, every sandbox of theirs is deleted (its conversations archived) and their keys removed; the user is gone from the API (404). Admins cannot delete themselves (409). When a sandbox cannot be removed the call answers 503 with the user disabled; call again to finish.
     */
    delete: operations["delete_user_api_v1_users__id__delete"];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/users/{id}/disable": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Disable a user (admins only)
     * @description Every key of the user is refused from now on and their running sandboxes are paused. Idempotent. Admins cannot disable themselves (409).
     */
    post: operations["disable_user_api_v1_users__id__disable_post"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/users/{id}/enable": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Enable a disabled user (admins only)
     * @description Their keys work again; paused sandboxes stay paused until resumed.
     */
    post: operations["enable_user_api_v1_users__id__enable_post"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/users/me": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The user behind the API key
     * @description With OpenHands' SDK fields (`llm_model`, `llm_base_url`, `llm_api_key`, `llm_profiles`, `mcp_config`), empty here: the server keeps no per-user LLM settings. `expose_secrets=true` is checked as OpenHands does: `X-Session-API-Key` must be the key of a RUNNING sandbox of yours (401 otherwise, 403 for another user's sandbox).
     */
    get: operations["get_me_api_v1_users_me_get"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/users/me/api-keys": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The caller's live API keys
     * @description The caller's keys that are not revoked: id, name, prefix and whether it is the key of this request; never the key itself.
     */
    get: operations["list_api_keys_api_v1_users_me_api_keys_get"];
    put?: never;
    /**
     * Create another API key for the caller
     * @description The key is in the answer only; it is stored hashed. Rotate by creating a new key, then revoking the old one.
     */
    post: operations["create_api_key_api_v1_users_me_api_keys_post"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/users/me/api-keys/{id}": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    /**
     * Revoke one of the caller's API keys
     * @description Effective at once, also for the key making this request. The last key cannot be revoked (409).
     */
    delete: operations["revoke_api_key_api_v1_users_me_api_keys__id__delete"];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/settings": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The caller's settings, as OpenHands' clients read them
     * @description The same for every user: this server keeps no per-user settings (no LLM configured, no secrets set; `v1_enabled` is true). An object rather than 404, so that clients which throw on 404 work too.
     */
    get: operations["load_settings_api_v1_settings_get"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/web-client/config": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Configuration for OpenHands' web client
     * @description No authentication. `app_mode` is "oss": a self-hosted server without billing or git integrations.
     */
    get: operations["get_web_client_config_api_v1_web_client_config_get"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
}
export interface webhooks {
  MessageEvent: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * MessageEvent delivered to a registered webhook
     * @description Sent in the Standard Webhooks format (https://www.standardwebhooks.com): verify with any `standardwebhooks` library and the webhook's secret. At-least-once; retried with backoff until a 2xx answer.
     */
    post: operations["webhook_MessageEvent"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  ActionEvent: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * ActionEvent delivered to a registered webhook
     * @description Sent in the Standard Webhooks format (https://www.standardwebhooks.com): verify with any `standardwebhooks` library and the webhook's secret. At-least-once; retried with backoff until a 2xx answer.
     */
    post: operations["webhook_ActionEvent"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  ObservationEvent: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * ObservationEvent delivered to a registered webhook
     * @description Sent in the Standard Webhooks format (https://www.standardwebhooks.com): verify with any `standardwebhooks` library and the webhook's secret. At-least-once; retried with backoff until a 2xx answer.
     */
    post: operations["webhook_ObservationEvent"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  ConversationStateUpdateEvent: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * ConversationStateUpdateEvent delivered to a registered webhook
     * @description Sent in the Standard Webhooks format (https://www.standardwebhooks.com): verify with any `standardwebhooks` library and the webhook's secret. At-least-once; retried with backoff until a 2xx answer.
     */
    post: operations["webhook_ConversationStateUpdateEvent"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  AgentErrorEvent: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * AgentErrorEvent delivered to a registered webhook
     * @description Sent in the Standard Webhooks format (https://www.standardwebhooks.com): verify with any `standardwebhooks` library and the webhook's secret. At-least-once; retried with backoff until a 2xx answer.
     */
    post: operations["webhook_AgentErrorEvent"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  ConversationErrorEvent: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * ConversationErrorEvent delivered to a registered webhook
     * @description Sent in the Standard Webhooks format (https://www.standardwebhooks.com): verify with any `standardwebhooks` library and the webhook's secret. At-least-once; retried with backoff until a 2xx answer.
     */
    post: operations["webhook_ConversationErrorEvent"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "sandbox.status_changed": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * sandbox.status_changed delivered to a registered webhook
     * @description Sent in the Standard Webhooks format (https://www.standardwebhooks.com): verify with any `standardwebhooks` library and the webhook's secret. At-least-once; retried with backoff until a 2xx answer.
     */
    post: operations["webhook_sandbox_status_changed"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "sandbox.deleted": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * sandbox.deleted delivered to a registered webhook
     * @description Sent in the Standard Webhooks format (https://www.standardwebhooks.com): verify with any `standardwebhooks` library and the webhook's secret. At-least-once; retried with backoff until a 2xx answer.
     */
    post: operations["webhook_sandbox_deleted"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "sandbox.egress_denied": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * sandbox.egress_denied delivered to a registered webhook
     * @description Sent in the Standard Webhooks format (https://www.standardwebhooks.com): verify with any `standardwebhooks` library and the webhook's secret. At-least-once; retried with backoff until a 2xx answer.
     */
    post: operations["webhook_sandbox_egress_denied"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
}
export interface components {
  schemas: {
    /** @enum {string} */
    SandboxStatus: "STARTING" | "RUNNING" | "PAUSED" | "STOPPING" | "ERROR";
    SandboxNetworkInput: {
      /** @description Public (global unicast) destinations are allowed unless `deny_out` matches */
      allow_internet?: boolean;
      /** @description Always allowed, over `deny_out` and `allow_internet: false`. A non-public address or network must lie inside the operator's SANDBOX_EGRESS_ALLOW; a name never opens a non-public address the operator did not */
      allow_out?: string[];
      /** @description Refused unless `allow_out` matches */
      deny_out?: string[];
    };
    /** @enum {string} */
    OnTimeout: "pause" | "delete";
    /** @enum {string} */
    EventKind:
      | "MessageEvent"
      | "ActionEvent"
      | "ObservationEvent"
      | "AgentErrorEvent"
      | "UserRejectObservation"
      | "SystemPromptEvent"
      | "ConversationStateUpdateEvent"
      | "ConversationErrorEvent"
      | "PauseEvent"
      | "InterruptEvent"
      | "Condensation"
      | "CondensationRequest"
      | "CondensationSummaryEvent"
      | "HookExecutionEvent"
      | "LLMCompletionLogEvent"
      | "TokenEvent"
      | "StreamingDeltaEvent"
      | "ACPToolCallEvent";
    /** @enum {string} */
    WebhookEventKind:
      | "MessageEvent"
      | "ActionEvent"
      | "ObservationEvent"
      | "ConversationStateUpdateEvent"
      | "AgentErrorEvent"
      | "ConversationErrorEvent"
      | "sandbox.status_changed"
      | "sandbox.deleted"
      | "sandbox.egress_denied";
    /** @enum {string} */
    WebhookDeliveryStatus: "pending" | "succeeded" | "failed";
    SandboxPage: {
      items: components["schemas"]["Sandbox"][];
      next_page_id: string | null;
    };
    Sandbox: {
      id: string;
      status: components["schemas"]["SandboxStatus"];
      sandbox_spec_id: string;
      created_by_user_id: string;
      /** @description UTC ISO 8601 timestamp */
      created_at: string;
      /** @description UTC ISO 8601 timestamp */
      updated_at: string;
      /** @description Only while RUNNING */
      agent_server_url: string | null;
      /** @description Only to the owner, only while RUNNING */
      session_api_key: string | null;
      exposed_urls: components["schemas"]["ExposedUrl"][];
      status_detail: string | null;
      labels: {
        [key: string]: string;
      };
      /** @description The egress policy in force */
      network: components["schemas"]["SandboxNetwork"];
      /** @description When `timeout_s` of active time is reached; null while PAUSED or without a timeout */
      expires_at: string | null;
      /** @description Time it has been active (any status but PAUSED), in whole seconds */
      active_time_s: number;
      lifetime: components["schemas"]["SandboxLifetime"];
      /** @description Opening a port URL while PAUSED resumes it */
      auto_resume: boolean;
    };
    ExposedUrl: {
      /** @description `AGENT_SERVER` (the agent server's base URL), then the ports declared at create under their names, each with a signed URL working for an hour from this read */
      name: string;
      url: string;
      port: number;
    };
    SandboxNetwork: {
      allow_internet: boolean;
      allow_out: string[];
      deny_out: string[];
    };
    SandboxLifetime: {
      /** @description Active time allowed in all (what has been used plus the last timeout set); null: none */
      timeout_s: number | null;
      on_timeout: components["schemas"]["OnTimeout"] | null;
      idle_pause_after_s: number | null;
      delete_paused_after_s: number | null;
      /** @description While PAUSED with `delete_paused_after_s`: when it will be deleted */
      delete_at: string | null;
    };
    SandboxBatch: (components["schemas"]["Sandbox"] | null)[];
    SandboxPortUrl: {
      port: number;
      /** @description Reaches the port (HTTP and WebSocket, any path) until `expires_at`; no key needed */
      url: string;
      expires_at: string;
    };
    SecretNamesResponse: {
      secrets: {
        name: string;
        description: string | null;
      }[];
    };
    SandboxSpecPage: {
      items: components["schemas"]["SandboxSpec"][];
      next_page_id: string | null;
    };
    SandboxSpec: {
      id: string;
      name: string;
      description: string;
      /** @enum {string} */
      runtime: "any" | "process" | "docker";
      image: string | null;
      command: string[] | null;
      working_dir: string | null;
      initial_env: {
        [key: string]: string;
      };
      cpu: number | null;
      memory_mb: number | null;
      pids: number | null;
      /** @description How this server isolates sandboxes of the spec: container (Docker), namespaces (bubblewrap) or none (plain processes: for one person and their own agents). Null when this server cannot run the spec. */
      isolation: ("none" | "namespaces" | "container") | null;
      /** @description The egress policy of the spec's sandboxes, unless a create sets its own */
      network: components["schemas"]["SandboxNetwork"];
      /** @description UTC ISO 8601 timestamp */
      created_at: string;
      /** @description Lifetime defaults of its sandboxes (a create's own fields win); absent fields and null: this server's defaults */
      lifetime: {
        /** @description Active time allowed from now; time spent PAUSED does not count. Extend it with POST /sandboxes/{id}/timeout, in whole seconds from 1 to this server's maximum (beyond it: 422 saying the maximum) */
        timeout_s?: number;
        /** @description What happens when `timeout_s` is reached: `pause` (default) or `delete` */
        on_timeout?: components["schemas"]["OnTimeout"];
        /** @description Pause after this long without activity: no message forwarded, no event from its agent, no proxied traffic; a running agent is activity, in whole seconds from 1 to this server's maximum (beyond it: 422 saying the maximum) */
        idle_pause_after_s?: number;
        /** @description Delete the sandbox once it has been PAUSED this long, in whole seconds from 1 to this server's maximum (beyond it: 422 saying the maximum) */
        delete_paused_after_s?: number;
      } | null;
    };
    StartedAppConversation: {
      id: string;
      sandbox_id: string;
      /** @description MISSING once the sandbox no longer exists (the conversation is then archived) */
      sandbox_status: components["schemas"]["ConversationSandboxStatus"];
      title: string | null;
      created_by_user_id: string;
      /** @description UTC ISO 8601 timestamp */
      created_at: string;
      /** @description UTC ISO 8601 timestamp */
      updated_at: string;
      /** @description true once its sandbox no longer exists */
      archived: boolean;
      /** @description From the agent server; null when unknown */
      execution_status:
        | (
            | "idle"
            | "running"
            | "paused"
            | "waiting_for_confirmation"
            | "finished"
            | "error"
            | "stuck"
          )
        | null;
      /** @description {agent_server_url}/api/conversations/{id}; null unless the sandbox is RUNNING */
      conversation_url: string | null;
      /** @description X-Session-API-Key for conversation_url */
      session_api_key: string | null;
      agent: {
        [key: string]: unknown;
      };
      metadata: {
        [key: string]: string;
      };
      /** @description The same map as `metadata` */
      tags: {
        [key: string]: string;
      };
      /** @description Always "openhands" (the agent itself is in `agent`) */
      agent_kind: string;
      llm_model: string | null;
      selected_repository: string | null;
      selected_branch: string | null;
      git_provider: string | null;
      trigger: string | null;
      pr_number: number[];
      public: boolean | null;
      parent_conversation_id: string | null;
      /** @description Always empty (not tracked) */
      sub_conversation_ids: string[];
      /** @description Always null (not tracked) */
      metrics: {
        [key: string]: unknown;
      } | null;
      status: components["schemas"]["AppConversationStartTaskStatus"];
      /** @description Why it is in ERROR */
      detail: string | null;
      /** @description Set once READY */
      app_conversation_id: string | null;
      agent_server_url: string | null;
      /** @description The create request as accepted */
      request: {
        [key: string]: unknown;
      };
    };
    /** @enum {string} */
    ConversationSandboxStatus: "STARTING" | "RUNNING" | "PAUSED" | "STOPPING" | "ERROR" | "MISSING";
    /** @enum {string} */
    AppConversationStartTaskStatus:
      | "WORKING"
      | "WAITING_FOR_SANDBOX"
      | "PREPARING_REPOSITORY"
      | "RUNNING_SETUP_SCRIPT"
      | "SETTING_UP_GIT_HOOKS"
      | "SETTING_UP_SKILLS"
      | "STARTING_CONVERSATION"
      | "READY"
      | "ERROR";
    AppConversationPage: {
      items: components["schemas"]["AppConversation"][];
      next_page_id: string | null;
    };
    AppConversation: {
      id: string;
      sandbox_id: string;
      /** @description MISSING once the sandbox no longer exists (the conversation is then archived) */
      sandbox_status: components["schemas"]["ConversationSandboxStatus"];
      title: string | null;
      created_by_user_id: string;
      /** @description UTC ISO 8601 timestamp */
      created_at: string;
      /** @description UTC ISO 8601 timestamp */
      updated_at: string;
      /** @description true once its sandbox no longer exists */
      archived: boolean;
      /** @description From the agent server; null when unknown */
      execution_status:
        | (
            | "idle"
            | "running"
            | "paused"
            | "waiting_for_confirmation"
            | "finished"
            | "error"
            | "stuck"
          )
        | null;
      /** @description {agent_server_url}/api/conversations/{id}; null unless the sandbox is RUNNING */
      conversation_url: string | null;
      /** @description X-Session-API-Key for conversation_url */
      session_api_key: string | null;
      agent: {
        [key: string]: unknown;
      };
      metadata: {
        [key: string]: string;
      };
      /** @description The same map as `metadata` */
      tags: {
        [key: string]: string;
      };
      /** @description Always "openhands" (the agent itself is in `agent`) */
      agent_kind: string;
      llm_model: string | null;
      selected_repository: string | null;
      selected_branch: string | null;
      git_provider: string | null;
      trigger: string | null;
      pr_number: number[];
      public: boolean | null;
      parent_conversation_id: string | null;
      /** @description Always empty (not tracked) */
      sub_conversation_ids: string[];
      /** @description Always null (not tracked) */
      metrics: {
        [key: string]: unknown;
      } | null;
    };
    AppConversationBatch: (components["schemas"]["AppConversation"] | null)[];
    AppConversationStartTask: {
      /** @description The id of the conversation it creates */
      id: string;
      created_by_user_id: string;
      status: components["schemas"]["AppConversationStartTaskStatus"];
      /** @description Why it is in ERROR */
      detail: string | null;
      /** @description Set once READY */
      app_conversation_id: string | null;
      sandbox_id: string | null;
      agent_server_url: string | null;
      /** @description The create request as accepted */
      request: {
        [key: string]: unknown;
      };
      /** @description UTC ISO 8601 timestamp */
      created_at: string;
      /** @description UTC ISO 8601 timestamp */
      updated_at: string;
    };
    Success: {
      success: boolean;
    };
    AppSendMessageResponse: {
      /** @description Whether the message was sent to the agent */
      success: boolean;
      /** @description Sandbox status after the operation */
      sandbox_status: components["schemas"]["SandboxStatus"];
      message?: string | null;
    };
    AppConversationStartTaskBatch: (components["schemas"]["AppConversationStartTask"] | null)[];
    AppConversationStartTaskPage: {
      items: components["schemas"]["AppConversationStartTask"][];
      next_page_id: string | null;
    };
    ConversationEventPage: {
      items: components["schemas"]["ConversationEvent"][];
      next_page_id: string | null;
    };
    ConversationEvent: {
      id: string;
      /** @description UTC ISO 8601 timestamp */
      timestamp: string;
      /** @description agent, user or environment */
      source: string;
      /** @description MessageEvent, ActionEvent, ObservationEvent, ... */
      kind: string;
    } & {
      [key: string]: unknown;
    };
    CreatedWebhook: {
      id: string;
      /** @description The URL; a password in it is shown as *** */
      url: string;
      /** @description null: every kind */
      events: string[] | null;
      conversation_id: string | null;
      /** @description UTC ISO 8601 timestamp */
      created_at: string;
      /** @description Shown once: verify each delivery's webhook-signature with it (Standard Webhooks) */
      secret: string;
    };
    WebhookPage: {
      items: components["schemas"]["Webhook"][];
      next_page_id: string | null;
    };
    Webhook: {
      id: string;
      /** @description The URL; a password in it is shown as *** */
      url: string;
      /** @description null: every kind */
      events: string[] | null;
      conversation_id: string | null;
      /** @description UTC ISO 8601 timestamp */
      created_at: string;
    };
    WebhookDeliveryPage: {
      items: components["schemas"]["WebhookDelivery"][];
      next_page_id: string | null;
    };
    WebhookDelivery: {
      /** @description Also sent as webhook-id; the same on every attempt */
      id: string;
      webhook_id: string;
      event_id: string;
      kind: string;
      status: components["schemas"]["WebhookDeliveryStatus"];
      attempts: number;
      last_status_code: number | null;
      /** @description Why the last attempt failed, as a category; the status code is last_status_code */
      last_error:
        | (
            | "destination_refused"
            | "dns_failed"
            | "connect_refused"
            | "connection_reset"
            | "timeout"
            | "tls_error"
            | "network_error"
            | "http_3xx"
            | "http_4xx"
            | "http_5xx"
            | "http_error"
          )
        | null;
      /** @description When the next attempt is due; null unless pending */
      next_attempt_at: string | null;
      /** @description UTC ISO 8601 timestamp */
      created_at: string;
      completed_at: string | null;
    };
    CreatedUser: {
      id: string;
      name: string;
      is_admin: boolean;
      /** @description Disabled users' keys are refused until an admin enables them */
      disabled: boolean;
      /** @description UTC ISO 8601 timestamp */
      created_at: string;
      /** @description Shown once; only its hash is stored */
      api_key: string;
    };
    UserList: {
      items: components["schemas"]["User"][];
    };
    User: {
      id: string;
      name: string;
      is_admin: boolean;
      /** @description Disabled users' keys are refused until an admin enables them */
      disabled: boolean;
      /** @description UTC ISO 8601 timestamp */
      created_at: string;
    };
    Me: {
      id: string;
      name: string;
      is_admin: boolean;
      /** @description Disabled users' keys are refused until an admin enables them */
      disabled: boolean;
      /** @description UTC ISO 8601 timestamp */
      created_at: string;
      email: string | null;
      llm_model: string | null;
      llm_base_url: string | null;
      /** @description Only with expose_secrets=true and a session key of your RUNNING sandbox */
      llm_api_key: string | null;
      llm_profiles: {
        profiles: {
          [key: string]: {
            [key: string]: unknown;
          };
        };
        active: string | null;
      };
      mcp_config: {
        [key: string]: unknown;
      } | null;
    };
    ApiKeyList: {
      items: components["schemas"]["ApiKey"][];
    };
    ApiKey: {
      id: string;
      name: string;
      /** @description The key's first characters, to tell keys apart */
      prefix: string;
      /** @description UTC ISO 8601 timestamp */
      created_at: string;
      /** @description Whether this request was made with this key */
      current: boolean;
    };
    CreatedApiKey: {
      id: string;
      name: string;
      /** @description The key's first characters, to tell keys apart */
      prefix: string;
      /** @description UTC ISO 8601 timestamp */
      created_at: string;
      /** @description Whether this request was made with this key */
      current: boolean;
      /** @description Shown once; only its hash is stored */
      api_key: string;
    };
    Settings: {
      language: string;
      v1_enabled: boolean;
      /** @description The agent a conversation gets when its create names none */
      agent: string;
      llm_model: string | null;
      llm_base_url: string | null;
      llm_api_key: string | null;
      llm_api_key_set: boolean;
      search_api_key: string | null;
      search_api_key_set: boolean;
      provider_tokens_set: {
        [key: string]: string | null;
      };
      confirmation_mode: boolean;
      security_analyzer: string | null;
      max_iterations: number | null;
      enable_default_condenser: boolean;
      condenser_max_size: number | null;
      mcp_config: {
        [key: string]: unknown;
      } | null;
      disabled_skills: string[];
      email: string | null;
      email_verified: boolean | null;
      git_user_name: string | null;
      git_user_email: string | null;
      enable_sound_notifications: boolean;
      enable_proactive_conversation_starters: boolean;
      user_consents_to_analytics: boolean | null;
      sandbox_grouping_strategy: string;
      secrets_store: {
        provider_tokens: {
          [key: string]: unknown;
        };
      };
      agent_settings: {
        agent: string;
        llm: {
          model: string | null;
          base_url: string | null;
          api_key: string | null;
        };
        condenser: {
          enabled: boolean;
          max_size: number | null;
        };
        mcp_config: {
          [key: string]: unknown;
        } | null;
      };
      conversation_settings: {
        confirmation_mode: boolean;
        security_analyzer: string | null;
        max_iterations: number | null;
      };
      llm_profiles: {
        profiles: {
          [key: string]: {
            [key: string]: unknown;
          };
        };
        active: string | null;
      };
    };
    WebClientConfig: {
      /** @enum {string} */
      app_mode: "saas" | "oss";
      posthog_client_key: string | null;
      feature_flags: {
        enable_billing: boolean;
        hide_llm_settings: boolean;
        enable_jira: boolean;
        enable_jira_dc: boolean;
        enable_linear: boolean;
        hide_users_page: boolean;
        hide_billing_page: boolean;
        hide_integrations_page: boolean;
        deployment_mode: ("cloud" | "self_hosted") | null;
        enable_onboarding: boolean;
      };
      providers_configured: (
        | "github"
        | "gitlab"
        | "bitbucket"
        | "bitbucket_data_center"
        | "forgejo"
        | "azure_devops"
      )[];
      maintenance_start_time: string | null;
      auth_url: string | null;
      recaptcha_site_key: string | null;
      faulty_models: string[];
      error_message: string | null;
      updated_at: string;
      github_app_slug: string | null;
      gitlab_enabled: boolean;
      provider_default_hosts: {
        [key: string]: string;
      };
      slack_enabled: boolean;
    };
    Error: {
      /** @description Stable machine-readable code, e.g. SANDBOX_NOT_RUNNING */
      code: string;
      message: string;
      /** @description The message as one string, validation issues (`path: message`) after it; what OpenHands clients show */
      detail: string;
      issues?: {
        path?: (string | number)[];
        message?: string;
        code?: string;
      }[];
      details?: Record<string, never>;
    };
  };
  responses: never;
  parameters: never;
  requestBodies: never;
  headers: never;
  pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
  search_sandboxes_api_v1_sandboxes_search_get: {
    parameters: {
      query?: {
        limit?: number;
        page_id?: string;
        status?: components["schemas"]["SandboxStatus"];
        sandbox_spec_id?: string;
        label?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Successful response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["SandboxPage"];
        };
      };
      /** @description Missing or invalid API key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Validation error */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  batch_get_sandboxes_api_v1_sandboxes_get: {
    parameters: {
      query?: {
        /** @description Repeat the key: id=a&id=b */
        id?: string[];
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Successful response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["SandboxBatch"];
        };
      };
      /** @description Missing or invalid API key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Validation error */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  start_sandbox_api_v1_sandboxes_post: {
    parameters: {
      query?: {
        /** @description Also accepted in the body; both given must agree */
        sandbox_spec_id?: string;
      };
      header?: {
        /** @description Makes the create safe to retry: within 24 h the same key (per user) with the same request answers the first response again (`Idempotent-Replayed: true`) instead of creating again; with a different request 422 `IDEMPOTENCY_KEY_REUSED`; while the first is still running elsewhere 409 `IDEMPOTENCY_KEY_IN_PROGRESS` (retry). Failed creates are not kept. */
        "Idempotency-Key"?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": {
          /** @description In the body or the query (`POST /sandboxes?sandbox_spec_id=`) */
          sandbox_spec_id?: string;
          labels?: {
            [key: string]: string;
          };
          env?: {
            [key: string]: string;
          };
          /** @description What the sandbox may connect to; fields absent here come from the spec's default (every public destination, no private one) */
          network?: components["schemas"]["SandboxNetworkInput"];
          /** @description Active time allowed from now; time spent PAUSED does not count. Extend it with POST /sandboxes/{id}/timeout, in whole seconds from 1 to this server's maximum (beyond it: 422 saying the maximum) */
          timeout_s?: number;
          /** @description What happens when `timeout_s` is reached: `pause` (default) or `delete` */
          on_timeout?: components["schemas"]["OnTimeout"];
          /** @description Pause after this long without activity: no message forwarded, no event from its agent, no proxied traffic; a running agent is activity, in whole seconds from 1 to this server's maximum (beyond it: 422 saying the maximum) */
          idle_pause_after_s?: number;
          /** @description Delete the sandbox once it has been PAUSED this long, in whole seconds from 1 to this server's maximum (beyond it: 422 saying the maximum) */
          delete_paused_after_s?: number;
          /** @description Ports to list in `exposed_urls`, each with a signed URL (1 h) while RUNNING; any other port is reached with GET /sandboxes/{id}/ports/{port} */
          ports?: {
            /** @description A port the sandbox serves on (1..65535) */
            port: number;
            /** @description Its name in `exposed_urls`, e.g. `VSCODE`, `WORKER_1` */
            name: string;
          }[];
          /** @description Opening a port URL of this sandbox while it is PAUSED resumes it (default false) */
          auto_resume?: boolean;
        };
      };
    };
    responses: {
      /** @description Successful response */
      201: {
        headers: {
          /** @description `true` when this answer is the replay of an earlier request's */
          "Idempotent-Replayed"?: "true";
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Sandbox"];
        };
      };
      /** @description Missing or invalid API key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Not found */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Conflict with the sandbox's current status */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Request body too large */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Request body is not uncompressed JSON */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Validation error */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Sandbox limit reached */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  delete_sandbox_api_v1_sandboxes_delete: {
    parameters: {
      query: {
        /** @description Sandbox id */
        sandbox_id: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Successful response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            success: boolean;
            id: string;
          };
        };
      };
      /** @description Missing or invalid API key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Not found */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Conflict with the sandbox's current status */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Validation error */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Sandbox or agent server unavailable */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  get_sandbox_api_v1_sandboxes__id__get: {
    parameters: {
      query?: {
        wait_for?: components["schemas"]["SandboxStatus"];
        timeout_s?: number;
      };
      header?: never;
      path: {
        /** @description Sandbox id */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Successful response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Sandbox"];
        };
      };
      /** @description Missing or invalid API key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Not found */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Validation error */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  delete_sandbox_api_v1_sandboxes__id__delete: {
    parameters: {
      query?: {
        sandbox_id?: string;
      };
      header?: never;
      path: {
        /** @description Sandbox id */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Successful response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            success: boolean;
            id: string;
          };
        };
      };
      /** @description Missing or invalid API key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Not found */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Conflict with the sandbox's current status */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Validation error */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Sandbox or agent server unavailable */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  pause_sandbox_api_v1_sandboxes__sandbox_id__pause_post: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description Sandbox id */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Successful response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Sandbox"];
        };
      };
      /** @description Missing or invalid API key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Not found */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Conflict with the sandbox's current status */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Request body too large */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Request body is not uncompressed JSON */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Validation error */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Sandbox or agent server unavailable */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  resume_sandbox_api_v1_sandboxes__sandbox_id__resume_post: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description Sandbox id */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Successful response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Sandbox"];
        };
      };
      /** @description Missing or invalid API key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Not found */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Conflict with the sandbox's current status */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Request body too large */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Request body is not uncompressed JSON */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Validation error */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Sandbox limit reached */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  set_sandbox_timeout_api_v1_sandboxes__sandbox_id__timeout_post: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description Sandbox id */
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": {
          /** @description Active time allowed from now (extends or shortens the timeout), in whole seconds from 1 to this server's maximum (beyond it: 422 saying the maximum) */
          timeout_s: number;
        };
      };
    };
    responses: {
      /** @description Successful response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Sandbox"];
        };
      };
      /** @description Missing or invalid API key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Not found */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Conflict with the sandbox's current status */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Request body too large */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Request body is not uncompressed JSON */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Validation error */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  get_sandbox_port_api_v1_sandboxes__id__ports__port__get: {
    parameters: {
      query?: {
        expires_in_s?: number;
      };
      header?: never;
      path: {
        /** @description Sandbox id */
        id: string;
        /** @description The port inside the sandbox, 1..65535 (not its agent server's) */
        port: number;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Successful response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["SandboxPortUrl"];
        };
      };
      /** @description Missing or invalid API key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Not found */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Validation error */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  list_secret_names_api_v1_sandboxes__sandbox_id__settings_secrets_get: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description Sandbox id */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Successful response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["SecretNamesResponse"];
        };
      };
      /** @description Missing or invalid API key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Not allowed */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Validation error */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  get_secret_value_api_v1_sandboxes__sandbox_id__settings_secrets__secret_name__get: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description Sandbox id */
        id: string;
        secret_name: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Successful response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": string;
        };
      };
      /** @description Missing or invalid API key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Not allowed */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Not found */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Validation error */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  update_sandbox_network_api_v1_sandboxes__id__network_patch: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description Sandbox id */
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": {
          /** @description Public (global unicast) destinations are allowed unless `deny_out` matches */
          allow_internet?: boolean;
          /** @description Always allowed, over `deny_out` and `allow_internet: false`. A non-public address or network must lie inside the operator's SANDBOX_EGRESS_ALLOW; a name never opens a non-public address the operator did not */
          allow_out?: string[];
          /** @description Refused unless `allow_out` matches */
          deny_out?: string[];
        };
      };
    };
    responses: {
      /** @description Successful response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Sandbox"];
        };
      };
      /** @description Missing or invalid API key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Not found */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Conflict with the sandbox's current status */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Request body too large */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Request body is not uncompressed JSON */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Validation error */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Not possible with this server's runtime */
      501: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Sandbox or agent server unavailable */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  search_sandbox_specs_api_v1_sandbox_specs_search_get: {
    parameters: {
      query?: {
        limit?: number;
        page_id?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Successful response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["SandboxSpecPage"];
        };
      };
      /** @description Missing or invalid API key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Validation error */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  search_app_conversations_api_v1_app_conversations_get: {
    parameters: {
      query?: {
        sandbox_id?: string;
        sandbox_id__eq?: string;
        archived?: "true" | "false";
        title__contains?: string;
        created_at__gte?: string;
        created_at__lt?: string;
        updated_at__gte?: string;
        updated_at__lt?: string;
        include_sub_conversations?: "true" | "false";
        limit?: number;
        page_id?: string;
        sort_order?:
          | "CREATED_AT"
          | "CREATED_AT_DESC"
          | "UPDATED_AT"
          | "UPDATED_AT_DESC"
          | "TITLE"
          | "TITLE_DESC";
        ids?: string[];
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Successful response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json":
            | components["schemas"]["AppConversationPage"]
            | components["schemas"]["AppConversationBatch"];
        };
      };
      /** @description Missing or invalid API key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Validation error */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  start_app_conversation_api_v1_app_conversations_post: {
    parameters: {
      query?: never;
      header?: {
        /** @description Makes the create safe to retry: within 24 h the same key (per user) with the same request answers the first response again (`Idempotent-Replayed: true`) instead of creating again; with a different request 422 `IDEMPOTENCY_KEY_REUSED`; while the first is still running elsewhere 409 `IDEMPOTENCY_KEY_IN_PROGRESS` (retry). Failed creates are not kept. */
        "Idempotency-Key"?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": {
          /** @description Add to this sandbox instead of starting one */
          sandbox_id?: string | null;
          sandbox_spec_id?: string | null;
          /** @description The new conversation's id (default: new) */
          conversation_id?: string | null;
          title?: string | null;
          /** @description Default {"kind":"shell"} */
          agent?:
            | (
                | ({
                    /** @constant */
                    kind: "shell";
                  } & {
                    [key: string]: unknown;
                  })
                | ({
                    /** @constant */
                    kind: "llm";
                    model: string;
                    /** Format: uri */
                    base_url?: string;
                  } & {
                    [key: string]: unknown;
                  })
                | ({
                    /** @constant */
                    kind: "Agent";
                    llm: {
                      model: string;
                      api_key?: string | null;
                      base_url?: string | null;
                    } & {
                      [key: string]: unknown;
                    };
                    tools?: unknown[];
                  } & {
                    [key: string]: unknown;
                  })
              )
            | null;
          /** @description Delivered when the conversation starts; it runs the agent unless it says run: false */
          initial_message?: {
            /** @constant */
            role?: "user";
            content:
              | (
                  | {
                      /** @constant */
                      type: "text";
                      text: string;
                      cache_prompt?: boolean;
                    }
                  | {
                      /** @constant */
                      type: "image";
                      image_urls: string[];
                      cache_prompt?: boolean;
                    }
                )[]
              | {
                  /** @constant */
                  type: "text";
                  text: string;
                  cache_prompt?: boolean;
                };
            run?: boolean;
          } | null;
          metadata?: {
            [key: string]: string;
          } | null;
          parent_conversation_id?: string | null;
          selected_repository?: string | null;
          selected_branch?: string | null;
          git_provider?: string | null;
          trigger?: string | null;
          llm_model?: string | null;
          pr_number?: number[] | null;
          public?: boolean | null;
        };
      };
    };
    responses: {
      /** @description Successful response */
      201: {
        headers: {
          /** @description `true` when this answer is the replay of an earlier request's */
          "Idempotent-Replayed"?: "true";
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["StartedAppConversation"];
        };
      };
      /** @description Missing or invalid API key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Not found */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Conflict with the sandbox's current status */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Request body too large */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Request body is not uncompressed JSON */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Validation error */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Sandbox limit reached */
      429: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Sandbox or agent server unavailable */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  stream_app_conversation_start_api_v1_app_conversations_stream_start_post: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": {
          /** @description Add to this sandbox instead of starting one */
          sandbox_id?: string | null;
          sandbox_spec_id?: string | null;
          /** @description The new conversation's id (default: new) */
          conversation_id?: string | null;
          title?: string | null;
          /** @description Default {"kind":"shell"} */
          agent?:
            | (
                | ({
                    /** @constant */
                    kind: "shell";
                  } & {
                    [key: string]: unknown;
                  })
                | ({
                    /** @constant */
                    kind: "llm";
                    model: string;
                    /** Format: uri */
                    base_url?: string;
                  } & {
                    [key: string]: unknown;
                  })
                | ({
                    /** @constant */
                    kind: "Agent";
                    llm: {
                      model: string;
                      api_key?: string | null;
                      base_url?: string | null;
                    } & {
                      [key: string]: unknown;
                    };
                    tools?: unknown[];
                  } & {
                    [key: string]: unknown;
                  })
              )
            | null;
          /** @description Delivered when the conversation starts; it runs the agent unless it says run: false */
          initial_message?: {
            /** @constant */
            role?: "user";
            content:
              | (
                  | {
                      /** @constant */
                      type: "text";
                      text: string;
                      cache_prompt?: boolean;
                    }
                  | {
                      /** @constant */
                      type: "image";
                      image_urls: string[];
                      cache_prompt?: boolean;
                    }
                )[]
              | {
                  /** @constant */
                  type: "text";
                  text: string;
                  cache_prompt?: boolean;
                };
            run?: boolean;
          } | null;
          metadata?: {
            [key: string]: string;
          } | null;
          parent_conversation_id?: string | null;
          selected_repository?: string | null;
          selected_branch?: string | null;
          git_provider?: string | null;
          trigger?: string | null;
          llm_model?: string | null;
          pr_number?: number[] | null;
          public?: boolean | null;
        };
      };
    };
    responses: {
      /** @description Successful response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["AppConversationStartTask"][];
        };
      };
      /** @description Missing or invalid API key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Not found */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Conflict with the sandbox's current status */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Request body too large */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Request body is not uncompressed JSON */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Validation error */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  search_app_conversations_api_v1_app_conversations_search_get: {
    parameters: {
      query?: {
        sandbox_id?: string;
        sandbox_id__eq?: string;
        archived?: "true" | "false";
        title__contains?: string;
        created_at__gte?: string;
        created_at__lt?: string;
        updated_at__gte?: string;
        updated_at__lt?: string;
        include_sub_conversations?: "true" | "false";
        limit?: number;
        page_id?: string;
        sort_order?:
          | "CREATED_AT"
          | "CREATED_AT_DESC"
          | "UPDATED_AT"
          | "UPDATED_AT_DESC"
          | "TITLE"
          | "TITLE_DESC";
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Successful response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["AppConversationPage"];
        };
      };
      /** @description Missing or invalid API key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Validation error */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  count_app_conversations_api_v1_app_conversations_count_get: {
    parameters: {
      query?: {
        sandbox_id?: string;
        sandbox_id__eq?: string;
        archived?: "true" | "false";
        title__contains?: string;
        created_at__gte?: string;
        created_at__lt?: string;
        updated_at__gte?: string;
        updated_at__lt?: string;
        include_sub_conversations?: "true" | "false";
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Successful response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": number;
        };
      };
      /** @description Missing or invalid API key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Validation error */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  get_app_conversation_api_v1_app_conversations__id__get: {
    parameters: {
      query?: {
        wait_for?:
          | "idle"
          | "running"
          | "paused"
          | "waiting_for_confirmation"
          | "finished"
          | "error"
          | "stuck"
          | "settled";
        timeout_s?: number;
      };
      header?: never;
      path: {
        /** @description UUID, with or without dashes */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Successful response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["AppConversation"];
        };
      };
      /** @description Missing or invalid API key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Not found */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Validation error */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  delete_app_conversation_api_v1_app_conversations__conversation_id__delete: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description UUID, with or without dashes */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Successful response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Success"];
        };
      };
      /** @description Missing or invalid API key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Not found */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Conflict with the sandbox's current status */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Validation error */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Sandbox or agent server unavailable */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  update_app_conversation_api_v1_app_conversations__conversation_id__patch: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description UUID, with or without dashes */
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": {
          title?: string | null;
          public?: boolean | null;
          selected_repository?: string | null;
          selected_branch?: string | null;
          git_provider?: string | null;
        };
      };
    };
    responses: {
      /** @description Successful response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["AppConversation"];
        };
      };
      /** @description Missing or invalid API key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Not found */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Request body too large */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Request body is not uncompressed JSON */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Validation error */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  send_message_to_conversation_api_v1_app_conversations__conversation_id__send_message_post: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description UUID, with or without dashes */
        conversation_id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": {
          /** @constant */
          role?: "user";
          content:
            | (
                | {
                    /** @constant */
                    type: "text";
                    text: string;
                    cache_prompt?: boolean;
                  }
                | {
                    /** @constant */
                    type: "image";
                    image_urls: string[];
                    cache_prompt?: boolean;
                  }
              )[]
            | {
                /** @constant */
                type: "text";
                text: string;
                cache_prompt?: boolean;
              };
          run?: boolean;
        };
      };
    };
    responses: {
      /** @description Successful response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["AppSendMessageResponse"];
        };
      };
      /** @description Missing or invalid API key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Not found */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Conflict with the sandbox's current status */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Gone: the conversation is archived */
      410: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Request body too large */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Request body is not uncompressed JSON */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Validation error */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Sandbox or agent server unavailable */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  batch_get_app_conversation_start_tasks_api_v1_app_conversations_start_tasks_get: {
    parameters: {
      query?: {
        /** @description Repeat the key: ids=a&ids=b */
        ids?: string[];
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Successful response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["AppConversationStartTaskBatch"];
        };
      };
      /** @description Missing or invalid API key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Validation error */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  search_app_conversation_start_tasks_api_v1_app_conversations_start_tasks_search_get: {
    parameters: {
      query?: {
        conversation_id__eq?: string;
        created_at__gte?: string;
        limit?: number;
        page_id?: string;
        sort_order?: "CREATED_AT" | "CREATED_AT_DESC" | "UPDATED_AT" | "UPDATED_AT_DESC";
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Successful response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["AppConversationStartTaskPage"];
        };
      };
      /** @description Missing or invalid API key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Validation error */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  count_app_conversation_start_tasks_api_v1_app_conversations_start_tasks_count_get: {
    parameters: {
      query?: {
        conversation_id__eq?: string;
        created_at__gte?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Successful response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": number;
        };
      };
      /** @description Missing or invalid API key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Validation error */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  search_app_conversation_events_api_v1_app_conversations__id__events_get: {
    parameters: {
      query?: {
        limit?: number;
        page_id?: string;
        kind__eq?: components["schemas"]["EventKind"];
        timestamp__gte?: string;
        timestamp__lt?: string;
        kind?: string;
        sort_order?: "TIMESTAMP" | "TIMESTAMP_DESC";
      };
      header?: never;
      path: {
        /** @description UUID, with or without dashes */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Successful response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ConversationEventPage"];
        };
      };
      /** @description Missing or invalid API key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Not found */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Validation error */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  search_events_api_v1_conversation__conversation_id__events_search_get: {
    parameters: {
      query?: {
        limit?: number;
        page_id?: string;
        kind__eq?: components["schemas"]["EventKind"];
        timestamp__gte?: string;
        timestamp__lt?: string;
        sort_order?: "TIMESTAMP" | "TIMESTAMP_DESC";
      };
      header?: never;
      path: {
        /** @description UUID, with or without dashes */
        conversation_id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Successful response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ConversationEventPage"];
        };
      };
      /** @description Missing or invalid API key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Not found */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Validation error */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  count_events_api_v1_conversation__conversation_id__events_count_get: {
    parameters: {
      query?: {
        kind__eq?: components["schemas"]["EventKind"];
        timestamp__gte?: string;
        timestamp__lt?: string;
      };
      header?: never;
      path: {
        /** @description UUID, with or without dashes */
        conversation_id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Successful response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": number;
        };
      };
      /** @description Missing or invalid API key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Not found */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Validation error */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  search_webhooks_api_v1_webhooks_get: {
    parameters: {
      query?: {
        limit?: number;
        page_id?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Successful response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["WebhookPage"];
        };
      };
      /** @description Missing or invalid API key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Validation error */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  create_webhook_api_v1_webhooks_post: {
    parameters: {
      query?: never;
      header?: {
        /** @description Makes the create safe to retry: within 24 h the same key (per user) with the same request answers the first response again (`Idempotent-Replayed: true`) instead of creating again; with a different request 422 `IDEMPOTENCY_KEY_REUSED`; while the first is still running elsewhere 409 `IDEMPOTENCY_KEY_IN_PROGRESS` (retry). Failed creates are not kept. */
        "Idempotency-Key"?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": {
          /** Format: uri */
          url: string;
          /** @description Deliver only these kinds; every kind when absent */
          events?: components["schemas"]["WebhookEventKind"][];
          /** @description Deliver only this conversation's events and its sandbox's lifecycle events */
          conversation_id?: string;
          /** @description Standard Webhooks secret: `whsec_` + standard base64 of 24..64 random bytes (the HMAC-SHA256 key); generated when absent */
          secret?: string;
        };
      };
    };
    responses: {
      /** @description Successful response */
      201: {
        headers: {
          /** @description `true` when this answer is the replay of an earlier request's */
          "Idempotent-Replayed"?: "true";
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["CreatedWebhook"];
        };
      };
      /** @description Missing or invalid API key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Not found */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Conflict with the sandbox's current status */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Request body too large */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Request body is not uncompressed JSON */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Validation error */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  get_webhook_api_v1_webhooks__id__get: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description Webhook id */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Successful response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Webhook"];
        };
      };
      /** @description Missing or invalid API key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Not found */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Validation error */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  delete_webhook_api_v1_webhooks__id__delete: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description Webhook id */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Successful response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            success: boolean;
            id: string;
          };
        };
      };
      /** @description Missing or invalid API key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Not found */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Validation error */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  search_webhook_deliveries_api_v1_webhooks__id__deliveries_get: {
    parameters: {
      query?: {
        limit?: number;
        page_id?: string;
        status?: components["schemas"]["WebhookDeliveryStatus"];
      };
      header?: never;
      path: {
        /** @description Webhook id */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Successful response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["WebhookDeliveryPage"];
        };
      };
      /** @description Missing or invalid API key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Not found */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Validation error */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  list_users_api_v1_users_get: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Successful response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["UserList"];
        };
      };
      /** @description Missing or invalid API key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Not allowed */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Validation error */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  create_user_api_v1_users_post: {
    parameters: {
      query?: never;
      header?: {
        /** @description Makes the create safe to retry: within 24 h the same key (per user) with the same request answers the first response again (`Idempotent-Replayed: true`) instead of creating again; with a different request 422 `IDEMPOTENCY_KEY_REUSED`; while the first is still running elsewhere 409 `IDEMPOTENCY_KEY_IN_PROGRESS` (retry). Failed creates are not kept. */
        "Idempotency-Key"?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": {
          name: string;
          is_admin?: boolean;
        };
      };
    };
    responses: {
      /** @description Successful response */
      201: {
        headers: {
          /** @description `true` when this answer is the replay of an earlier request's */
          "Idempotent-Replayed"?: "true";
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["CreatedUser"];
        };
      };
      /** @description Missing or invalid API key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Not allowed */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Conflict with the sandbox's current status */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Request body too large */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Request body is not uncompressed JSON */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Validation error */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  get_user_api_v1_users__id__get: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description User id */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Successful response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["User"];
        };
      };
      /** @description Missing or invalid API key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Not allowed */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Not found */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Validation error */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  delete_user_api_v1_users__id__delete: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description User id */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Successful response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            success: boolean;
            id: string;
          };
        };
      };
      /** @description Missing or invalid API key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Not allowed */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Not found */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Conflict with the sandbox's current status */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Validation error */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Sandbox or agent server unavailable */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  disable_user_api_v1_users__id__disable_post: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description User id */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Successful response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["User"];
        };
      };
      /** @description Missing or invalid API key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Not allowed */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Not found */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Conflict with the sandbox's current status */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Request body too large */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Request body is not uncompressed JSON */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Validation error */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Sandbox or agent server unavailable */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  enable_user_api_v1_users__id__enable_post: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description User id */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Successful response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["User"];
        };
      };
      /** @description Missing or invalid API key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Not allowed */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Not found */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Conflict with the sandbox's current status */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Request body too large */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Request body is not uncompressed JSON */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Validation error */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  get_me_api_v1_users_me_get: {
    parameters: {
      query?: {
        expose_secrets?: "true" | "false";
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Successful response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Me"];
        };
      };
      /** @description Missing or invalid API key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Not allowed */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Validation error */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  list_api_keys_api_v1_users_me_api_keys_get: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Successful response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["ApiKeyList"];
        };
      };
      /** @description Missing or invalid API key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Validation error */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  create_api_key_api_v1_users_me_api_keys_post: {
    parameters: {
      query?: never;
      header?: {
        /** @description Makes the create safe to retry: within 24 h the same key (per user) with the same request answers the first response again (`Idempotent-Replayed: true`) instead of creating again; with a different request 422 `IDEMPOTENCY_KEY_REUSED`; while the first is still running elsewhere 409 `IDEMPOTENCY_KEY_IN_PROGRESS` (retry). Failed creates are not kept. */
        "Idempotency-Key"?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": {
          name: string;
        };
      };
    };
    responses: {
      /** @description Successful response */
      201: {
        headers: {
          /** @description `true` when this answer is the replay of an earlier request's */
          "Idempotent-Replayed"?: "true";
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["CreatedApiKey"];
        };
      };
      /** @description Missing or invalid API key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Conflict with the sandbox's current status */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Request body too large */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Request body is not uncompressed JSON */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Validation error */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  revoke_api_key_api_v1_users_me_api_keys__id__delete: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description API key id */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Successful response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": {
            success: boolean;
            id: string;
          };
        };
      };
      /** @description Missing or invalid API key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Not found */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Conflict with the sandbox's current status */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Validation error */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  load_settings_api_v1_settings_get: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Successful response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Settings"];
        };
      };
      /** @description Missing or invalid API key */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
      /** @description Validation error */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  get_web_client_config_api_v1_web_client_config_get: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Successful response */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["WebClientConfig"];
        };
      };
      /** @description Validation error */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          "application/json": components["schemas"]["Error"];
        };
      };
    };
  };
  webhook_MessageEvent: {
    parameters: {
      query?: never;
      header: {
        /** @description The delivery's id, the same on every attempt: dedupe on it */
        "webhook-id": string;
        /** @description Unix seconds when this attempt was signed */
        "webhook-timestamp": string;
        /** @description `v1,` + base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{raw body}` under the key the webhook's `whsec_` secret encodes */
        "webhook-signature": string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": {
          /** @description The agent server's event id */
          event_id: string;
          /** @constant */
          kind: "MessageEvent";
          /** Format: date-time */
          occurred_at: string;
          sandbox_id: string | null;
          /** Format: uuid */
          conversation_id: string;
          /** @description The agent server's MessageEvent as sent */
          data: components["schemas"]["ConversationEvent"];
        };
      };
    };
    responses: {
      /** @description Received; any other answer (or none) is retried */
      "2XX": {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  webhook_ActionEvent: {
    parameters: {
      query?: never;
      header: {
        /** @description The delivery's id, the same on every attempt: dedupe on it */
        "webhook-id": string;
        /** @description Unix seconds when this attempt was signed */
        "webhook-timestamp": string;
        /** @description `v1,` + base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{raw body}` under the key the webhook's `whsec_` secret encodes */
        "webhook-signature": string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": {
          /** @description The agent server's event id */
          event_id: string;
          /** @constant */
          kind: "ActionEvent";
          /** Format: date-time */
          occurred_at: string;
          sandbox_id: string | null;
          /** Format: uuid */
          conversation_id: string;
          /** @description The agent server's ActionEvent as sent */
          data: components["schemas"]["ConversationEvent"];
        };
      };
    };
    responses: {
      /** @description Received; any other answer (or none) is retried */
      "2XX": {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  webhook_ObservationEvent: {
    parameters: {
      query?: never;
      header: {
        /** @description The delivery's id, the same on every attempt: dedupe on it */
        "webhook-id": string;
        /** @description Unix seconds when this attempt was signed */
        "webhook-timestamp": string;
        /** @description `v1,` + base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{raw body}` under the key the webhook's `whsec_` secret encodes */
        "webhook-signature": string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": {
          /** @description The agent server's event id */
          event_id: string;
          /** @constant */
          kind: "ObservationEvent";
          /** Format: date-time */
          occurred_at: string;
          sandbox_id: string | null;
          /** Format: uuid */
          conversation_id: string;
          /** @description The agent server's ObservationEvent as sent */
          data: components["schemas"]["ConversationEvent"];
        };
      };
    };
    responses: {
      /** @description Received; any other answer (or none) is retried */
      "2XX": {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  webhook_ConversationStateUpdateEvent: {
    parameters: {
      query?: never;
      header: {
        /** @description The delivery's id, the same on every attempt: dedupe on it */
        "webhook-id": string;
        /** @description Unix seconds when this attempt was signed */
        "webhook-timestamp": string;
        /** @description `v1,` + base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{raw body}` under the key the webhook's `whsec_` secret encodes */
        "webhook-signature": string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": {
          /** @description The agent server's event id */
          event_id: string;
          /** @constant */
          kind: "ConversationStateUpdateEvent";
          /** Format: date-time */
          occurred_at: string;
          sandbox_id: string | null;
          /** Format: uuid */
          conversation_id: string;
          /** @description The agent server's ConversationStateUpdateEvent as sent */
          data: components["schemas"]["ConversationEvent"];
        };
      };
    };
    responses: {
      /** @description Received; any other answer (or none) is retried */
      "2XX": {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  webhook_AgentErrorEvent: {
    parameters: {
      query?: never;
      header: {
        /** @description The delivery's id, the same on every attempt: dedupe on it */
        "webhook-id": string;
        /** @description Unix seconds when this attempt was signed */
        "webhook-timestamp": string;
        /** @description `v1,` + base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{raw body}` under the key the webhook's `whsec_` secret encodes */
        "webhook-signature": string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": {
          /** @description The agent server's event id */
          event_id: string;
          /** @constant */
          kind: "AgentErrorEvent";
          /** Format: date-time */
          occurred_at: string;
          sandbox_id: string | null;
          /** Format: uuid */
          conversation_id: string;
          /** @description The agent server's AgentErrorEvent as sent */
          data: components["schemas"]["ConversationEvent"];
        };
      };
    };
    responses: {
      /** @description Received; any other answer (or none) is retried */
      "2XX": {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  webhook_ConversationErrorEvent: {
    parameters: {
      query?: never;
      header: {
        /** @description The delivery's id, the same on every attempt: dedupe on it */
        "webhook-id": string;
        /** @description Unix seconds when this attempt was signed */
        "webhook-timestamp": string;
        /** @description `v1,` + base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{raw body}` under the key the webhook's `whsec_` secret encodes */
        "webhook-signature": string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": {
          /** @description The agent server's event id */
          event_id: string;
          /** @constant */
          kind: "ConversationErrorEvent";
          /** Format: date-time */
          occurred_at: string;
          sandbox_id: string | null;
          /** Format: uuid */
          conversation_id: string;
          /** @description The agent server's ConversationErrorEvent as sent */
          data: components["schemas"]["ConversationEvent"];
        };
      };
    };
    responses: {
      /** @description Received; any other answer (or none) is retried */
      "2XX": {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  webhook_sandbox_status_changed: {
    parameters: {
      query?: never;
      header: {
        /** @description The delivery's id, the same on every attempt: dedupe on it */
        "webhook-id": string;
        /** @description Unix seconds when this attempt was signed */
        "webhook-timestamp": string;
        /** @description `v1,` + base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{raw body}` under the key the webhook's `whsec_` secret encodes */
        "webhook-signature": string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": {
          /** @description Generated for this occurrence */
          event_id: string;
          /** @constant */
          kind: "sandbox.status_changed";
          /** Format: date-time */
          occurred_at: string;
          sandbox_id: string | null;
          conversation_id: null;
          data: {
            sandbox_id: string;
            status: components["schemas"]["SandboxStatus"];
            previous_status: components["schemas"]["SandboxStatus"] | null;
            status_detail: string | null;
          };
        };
      };
    };
    responses: {
      /** @description Received; any other answer (or none) is retried */
      "2XX": {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  webhook_sandbox_deleted: {
    parameters: {
      query?: never;
      header: {
        /** @description The delivery's id, the same on every attempt: dedupe on it */
        "webhook-id": string;
        /** @description Unix seconds when this attempt was signed */
        "webhook-timestamp": string;
        /** @description `v1,` + base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{raw body}` under the key the webhook's `whsec_` secret encodes */
        "webhook-signature": string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": {
          /** @description Generated for this occurrence */
          event_id: string;
          /** @constant */
          kind: "sandbox.deleted";
          /** Format: date-time */
          occurred_at: string;
          sandbox_id: string | null;
          conversation_id: null;
          data: {
            sandbox_id: string;
          };
        };
      };
    };
    responses: {
      /** @description Received; any other answer (or none) is retried */
      "2XX": {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
  webhook_sandbox_egress_denied: {
    parameters: {
      query?: never;
      header: {
        /** @description The delivery's id, the same on every attempt: dedupe on it */
        "webhook-id": string;
        /** @description Unix seconds when this attempt was signed */
        "webhook-timestamp": string;
        /** @description `v1,` + base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{raw body}` under the key the webhook's `whsec_` secret encodes */
        "webhook-signature": string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": {
          /** @description Generated for this occurrence */
          event_id: string;
          /** @constant */
          kind: "sandbox.egress_denied";
          /** Format: date-time */
          occurred_at: string;
          sandbox_id: string | null;
          conversation_id: null;
          /** @description A connection the sandbox's egress policy refused. At most one event per destination per minute; `denied` counts the refusals since the previous event for it. */
          data: {
            sandbox_id: string;
            /** @description `host:port` or `address:port` (IPv6 in brackets), as the sandbox asked */
            destination: string;
            /** @description What refused it: `metadata`, `deny_out <entry>`, `allow_internet false`, `private range (<class>)` */
            rule: string;
            denied: number;
            /** Format: date-time */
            first_denied_at: string;
          };
        };
      };
    };
    responses: {
      /** @description Received; any other answer (or none) is retried */
      "2XX": {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
    };
  };
}

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
    /** Search sandboxes */
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
    get?: never;
    put?: never;
    /**
     * Start a sandbox
     * @description Answers at once with the sandbox STARTING; it becomes RUNNING when its agent server answers.
     */
    post: operations["start_sandbox_api_v1_sandboxes_post"];
    delete?: never;
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
    /** Read a sandbox */
    get: operations["get_sandbox_api_v1_sandboxes__id__get"];
    put?: never;
    post?: never;
    /**
     * Stop and remove a sandbox
     * @description Its conversations become archived (send-message answers 410).
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
    /** Pause a sandbox */
    post: operations["pause_sandbox_api_v1_sandboxes__id__pause_post"];
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
    post: operations["resume_sandbox_api_v1_sandboxes__id__resume_post"];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/sandbox-specs/search": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** List sandbox specs */
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
    /** List conversations */
    get: operations["search_app_conversations_api_v1_app_conversations_get"];
    put?: never;
    /**
     * Create a conversation
     * @description Starts a sandbox (or uses `sandbox_id`), waits until it is RUNNING and the conversation exists on its agent server, delivers `initial_message`, and returns the conversation.
     */
    post: operations["start_app_conversation_api_v1_app_conversations_post"];
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
    /** Read a conversation, including its conversation_url */
    get: operations["get_app_conversation_api_v1_app_conversations__id__get"];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
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
  "/api/v1/webhooks": {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** List webhooks */
    get: operations["search_webhooks_api_v1_webhooks_get"];
    put?: never;
    /**
     * Register a webhook
     * @description Events of the caller's conversations and sandboxes are POSTed to `url`, signed with `secret` (X-Sandbox-Server-Signature: sha256=HMAC of `<timestamp>.<body>`). The secret is shown only in this answer.
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
    /** Read a webhook */
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
    /** Every user, oldest first (admins only) */
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
    /** Read a user (admins only) */
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
    /** The user behind the API key */
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
    /** The caller's live API keys */
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
}
export type webhooks = Record<string, never>;
export interface components {
  schemas: {
    /** @enum {string} */
    SandboxStatus: "STARTING" | "RUNNING" | "PAUSED" | "STOPPING" | "ERROR";
    /** @enum {string} */
    WebhookEventKind:
      | "MessageEvent"
      | "ActionEvent"
      | "ObservationEvent"
      | "ConversationStateUpdateEvent"
      | "AgentErrorEvent"
      | "ConversationErrorEvent"
      | "sandbox.status_changed"
      | "sandbox.deleted";
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
      exposed_urls: {
        name: string;
        url: string;
        port: number;
      }[];
      status_detail: string | null;
      labels: {
        [key: string]: string;
      };
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
      /** @description UTC ISO 8601 timestamp */
      created_at: string;
    };
    AppConversation: {
      id: string;
      sandbox_id: string;
      /** @description null once the sandbox no longer exists */
      sandbox_status: components["schemas"]["SandboxStatus"] | null;
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
    };
    AppConversationPage: {
      items: components["schemas"]["AppConversation"][];
      next_page_id: string | null;
    };
    AppSendMessageResponse: {
      /** @description Whether the message was sent to the agent */
      success: boolean;
      /** @description Sandbox status after the operation */
      sandbox_status: components["schemas"]["SandboxStatus"];
      message?: string | null;
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
      url: string;
      /** @description null: every kind */
      events: string[] | null;
      conversation_id: string | null;
      /** @description UTC ISO 8601 timestamp */
      created_at: string;
      /** @description Shown once: verify X-Sandbox-Server-Signature with it */
      secret: string;
    };
    WebhookPage: {
      items: components["schemas"]["Webhook"][];
      next_page_id: string | null;
    };
    Webhook: {
      id: string;
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
      /** @description Also sent as X-Sandbox-Server-Delivery; the same on every attempt */
      id: string;
      webhook_id: string;
      event_id: string;
      kind: string;
      status: components["schemas"]["WebhookDeliveryStatus"];
      attempts: number;
      last_status_code: number | null;
      last_error: string | null;
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
    Error: {
      /** @description Stable machine-readable code, e.g. SANDBOX_NOT_RUNNING */
      code: string;
      message: string;
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
  start_sandbox_api_v1_sandboxes_post: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        "application/json": {
          sandbox_spec_id?: string;
          labels?: {
            [key: string]: string;
          };
          env?: {
            [key: string]: string;
          };
        };
      };
    };
    responses: {
      /** @description Successful response */
      201: {
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
  get_sandbox_api_v1_sandboxes__id__get: {
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
  pause_sandbox_api_v1_sandboxes__id__pause_post: {
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
  resume_sandbox_api_v1_sandboxes__id__resume_post: {
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
        limit?: number;
        page_id?: string;
        sandbox_id?: string;
        archived?: "true" | "false";
        title__contains?: string;
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
  start_app_conversation_api_v1_app_conversations_post: {
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
          sandbox_id?: string;
          sandbox_spec_id?: string;
          title?: string;
          /** @description Default {"kind":"shell"} */
          agent?:
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
              });
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
          };
          metadata?: {
            [key: string]: string;
          };
        };
      };
    };
    responses: {
      /** @description Successful response */
      201: {
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
  get_app_conversation_api_v1_app_conversations__id__get: {
    parameters: {
      query?: never;
      header?: never;
      path: {
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
  send_message_to_conversation_api_v1_app_conversations__conversation_id__send_message_post: {
    parameters: {
      query?: never;
      header?: never;
      path: {
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
  search_app_conversation_events_api_v1_app_conversations__id__events_get: {
    parameters: {
      query?: {
        limit?: number;
        page_id?: string;
        kind?: string;
        sort_order?: "TIMESTAMP" | "TIMESTAMP_DESC";
      };
      header?: never;
      path: {
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
      header?: never;
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
          /**
           * Format: uuid
           * @description Deliver only this conversation's events and its sandbox's lifecycle events
           */
          conversation_id?: string;
          /** @description HMAC-SHA256 key for signatures; generated when absent */
          secret?: string;
        };
      };
    };
    responses: {
      /** @description Successful response */
      201: {
        headers: {
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
      header?: never;
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
      header?: never;
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
}

import { z } from "zod";
import { QueryBoolean, Timestamp } from "../shared/contracts";

export const UserOut = z
  .object({
    id: z.string(),
    name: z.string(),
    is_admin: z.boolean(),
    disabled: z.boolean().describe("Disabled users' keys are refused until an admin enables them"),
    created_at: Timestamp,
  })
  .meta({ id: "User" });

export const UserIdInput = z.object({ id: z.string().min(1).max(64).describe("User id") });

export const UserList = z.object({ items: z.array(UserOut) }).meta({ id: "UserList" });

export const DeletedUser = z.object({ success: z.boolean(), id: z.string() });

export const CreateUserInput = z.object({
  name: z.string().trim().min(1).max(200),
  is_admin: z.boolean().optional(),
});

export const CreatedUser = UserOut.extend({
  api_key: z.string().describe("Shown once; only its hash is stored"),
}).meta({ id: "CreatedUser" });

export const ApiKeyId = z.string().min(1).max(64).describe("API key id");

export const ApiKeyOut = z
  .object({
    id: z.string(),
    name: z.string(),
    prefix: z.string().describe("The key's first characters, to tell keys apart"),
    created_at: Timestamp,
    current: z.boolean().describe("Whether this request was made with this key"),
  })
  .meta({ id: "ApiKey" });

export const ApiKeyList = z.object({ items: z.array(ApiKeyOut) }).meta({ id: "ApiKeyList" });

export const CreateApiKeyInput = z.object({ name: z.string().trim().min(1).max(200) });

export const CreatedApiKey = ApiKeyOut.extend({
  api_key: z.string().describe("Shown once; only its hash is stored"),
}).meta({ id: "CreatedApiKey" });

export const ApiKeyIdInput = z.object({ id: ApiKeyId });

export const RevokedApiKey = z.object({ success: z.boolean(), id: z.string() });

/**
 * `GET /users/me`: the user, plus the flat fields OpenHands' SDK reads from its app server's user
 * (`llm_model`, `llm_base_url`, `llm_api_key`, `llm_profiles`, `mcp_config`). This server keeps no
 * LLM or MCP settings per user (a sandbox's LLM comes with the sandbox's environment), so they are
 * empty: null, and no profiles.
 */
export const MeOut = UserOut.extend({
  email: z.string().nullable(),
  llm_model: z.string().nullable(),
  llm_base_url: z.string().nullable(),
  llm_api_key: z
    .string()
    .nullable()
    .describe("Only with expose_secrets=true and a session key of your RUNNING sandbox"),
  llm_profiles: z.object({
    profiles: z.record(z.string(), z.record(z.string(), z.unknown())),
    active: z.string().nullable(),
  }),
  mcp_config: z.record(z.string(), z.unknown()).nullable(),
}).meta({ id: "Me" });

export const GetMeInput = z.object({
  expose_secrets: QueryBoolean.optional().describe(
    "OpenHands' SDK: also answer secrets; needs X-Session-API-Key of a RUNNING sandbox you own",
  ),
});

import { router } from "../trpc";
import { createApiKey } from "./create-api-key";
import { createUser } from "./create-user";
import { getMe } from "./get-me";
import { listApiKeys } from "./list-api-keys";
import { revokeApiKey } from "./revoke-api-key";

export const usersRouter = router({
  create: createUser,
  me: getMe,
  listApiKeys,
  createApiKey,
  revokeApiKey,
});

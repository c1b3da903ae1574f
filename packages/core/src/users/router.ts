import { router } from "../trpc";
import { createApiKey } from "./create-api-key";
import { createUser } from "./create-user";
import { deleteUser } from "./delete-user";
import { disableUser } from "./disable-user";
import { enableUser } from "./enable-user";
import { getMe } from "./get-me";
import { getUser } from "./get-user";
import { listApiKeys } from "./list-api-keys";
import { listUsers } from "./list-users";
import { revokeApiKey } from "./revoke-api-key";

export const usersRouter = router({
  create: createUser,
  list: listUsers,
  get: getUser,
  disable: disableUser,
  enable: enableUser,
  delete: deleteUser,
  me: getMe,
  listApiKeys,
  createApiKey,
  revokeApiKey,
});

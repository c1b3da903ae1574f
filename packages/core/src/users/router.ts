import { router } from "../trpc";
import { createApiKey } from "./procedures/create-api-key";
import { createUser } from "./procedures/create-user";
import { deleteUser } from "./procedures/delete-user";
import { disableUser } from "./procedures/disable-user";
import { enableUser } from "./procedures/enable-user";
import { getMe } from "./procedures/get-me";
import { getUser } from "./procedures/get-user";
import { listApiKeys } from "./procedures/list-api-keys";
import { listUsers } from "./procedures/list-users";
import { revokeApiKey } from "./procedures/revoke-api-key";

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

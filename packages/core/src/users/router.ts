import { router } from "../trpc";
import { createUser } from "./create-user";
import { getMe } from "./get-me";

export const usersRouter = router({ create: createUser, me: getMe });

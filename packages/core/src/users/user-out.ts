import type { User } from "@sandbox-server/db";
import { iso } from "../shared/time";

/** A user as the API shows it. */
export function userOut(user: User) {
  return {
    id: user.id,
    name: user.name,
    is_admin: user.isAdmin,
    disabled: user.disabledAt !== null,
    created_at: iso(user.createdAt),
  };
}

import { z } from "zod";
import { Timestamp } from "../shared/contracts";

export const UserOut = z
  .object({ id: z.string(), name: z.string(), is_admin: z.boolean(), created_at: Timestamp })
  .meta({ id: "User" });

export const CreateUserInput = z.object({
  name: z.string().trim().min(1).max(200),
  is_admin: z.boolean().optional(),
});

export const CreatedUser = UserOut.extend({
  api_key: z.string().describe("Shown once; only its hash is stored"),
}).meta({ id: "CreatedUser" });

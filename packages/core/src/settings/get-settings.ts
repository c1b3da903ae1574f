import { z } from "zod";
import { rest } from "../shared/rest";
import { authedProcedure } from "../trpc";
import { Settings } from "./contracts";
import { defaultSettings } from "./defaults";

export const getSettings = authedProcedure
  .meta(
    rest("GET", "/settings", "load_settings", {
      summary: "The caller's settings, as OpenHands' clients read them",
      description:
        "The same for every user: this server keeps no per-user settings (no LLM configured, no secrets set; `v1_enabled` is true). An object rather than 404, so that clients which throw on 404 work too.",
      tag: "Settings",
    }),
  )
  .input(z.object({}))
  .output(Settings)
  .query(() => defaultSettings());

import { z } from "zod";
import { rest } from "../shared/rest";
import { iso } from "../shared/time";
import { publicProcedure } from "../trpc";
import { WebClientConfig } from "./contracts";
import { webClientConfig } from "./defaults";

/** Fixed while the process runs: the config does not change without a restart. */
const loadedAt = iso(Date.now());

export const getWebClientConfig = publicProcedure
  .meta(
    rest("GET", "/web-client/config", "get_web_client_config", {
      summary: "Configuration for OpenHands' web client",
      description:
        'No authentication. `app_mode` is "oss": a self-hosted server without billing or git integrations.',
      tag: "Settings",
      protect: false,
    }),
  )
  .input(z.object({}))
  .output(WebClientConfig)
  .query(() => webClientConfig(loadedAt));

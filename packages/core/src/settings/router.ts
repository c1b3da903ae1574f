import { router } from "../trpc";
import { getSettings } from "./get-settings";
import { getWebClientConfig } from "./get-web-client-config";

export const settingsRouter = router({
  get: getSettings,
  webClientConfig: getWebClientConfig,
});

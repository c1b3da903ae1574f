import { router } from "../trpc";
import { createWebhook } from "./procedures/create-webhook";
import { deleteWebhook } from "./procedures/delete-webhook";
import { getWebhook } from "./procedures/get-webhook";
import { listDeliveries } from "./procedures/list-deliveries";
import { listWebhooks } from "./procedures/list-webhooks";

export const webhooksRouter = router({
  create: createWebhook,
  list: listWebhooks,
  get: getWebhook,
  delete: deleteWebhook,
  deliveries: listDeliveries,
});

import { router } from "../trpc";
import { createWebhook } from "./create-webhook";
import { deleteWebhook } from "./delete-webhook";
import { getWebhook } from "./get-webhook";
import { listDeliveries } from "./list-deliveries";
import { listWebhooks } from "./list-webhooks";

export const webhooksRouter = router({
  create: createWebhook,
  list: listWebhooks,
  get: getWebhook,
  delete: deleteWebhook,
  deliveries: listDeliveries,
});

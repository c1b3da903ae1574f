import { router } from "../trpc";
import { batchGetSandboxes } from "./batch-get-sandboxes";
import { deleteSandbox } from "./delete-sandbox";
import { deleteSandboxByQuery } from "./delete-sandbox-by-query";
import { getSandbox } from "./get-sandbox";
import { getSandboxPort } from "./get-sandbox-port";
import { getSandboxSecret } from "./get-sandbox-secret";
import { listSandboxSecrets } from "./list-sandbox-secrets";
import { pauseSandbox } from "./pause-sandbox";
import { resumeSandbox } from "./resume-sandbox";
import { searchSandboxes } from "./search-sandboxes";
import { setSandboxTimeout } from "./set-sandbox-timeout";
import { startSandbox } from "./start-sandbox";
import { updateSandboxNetwork } from "./update-sandbox-network";

export const sandboxesRouter = router({
  search: searchSandboxes,
  batchGet: batchGetSandboxes,
  start: startSandbox,
  get: getSandbox,
  pause: pauseSandbox,
  resume: resumeSandbox,
  setTimeout: setSandboxTimeout,
  getPort: getSandboxPort,
  delete: deleteSandbox,
  deleteByQuery: deleteSandboxByQuery,
  listSecrets: listSandboxSecrets,
  getSecret: getSandboxSecret,
  // After delete: the REST route table lists methods in the order they are first declared.
  updateNetwork: updateSandboxNetwork,
});

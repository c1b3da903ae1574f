import { router } from "../trpc";
import { batchGetSandboxes } from "./procedures/batch-get-sandboxes";
import { deleteSandbox } from "./procedures/delete-sandbox";
import { deleteSandboxByQuery } from "./procedures/delete-sandbox-by-query";
import { getSandbox } from "./procedures/get-sandbox";
import { getSandboxPort } from "./procedures/get-sandbox-port";
import { getSandboxSecret } from "./procedures/get-sandbox-secret";
import { listSandboxSecrets } from "./procedures/list-sandbox-secrets";
import { pauseSandbox } from "./procedures/pause-sandbox";
import { resumeSandbox } from "./procedures/resume-sandbox";
import { searchSandboxes } from "./procedures/search-sandboxes";
import { setSandboxTimeout } from "./procedures/set-sandbox-timeout";
import { startSandbox } from "./procedures/start-sandbox";
import { updateSandboxNetwork } from "./procedures/update-sandbox-network";

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

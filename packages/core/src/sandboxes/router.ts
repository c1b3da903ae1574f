import { router } from "../trpc";
import { deleteSandbox } from "./delete-sandbox";
import { getSandbox } from "./get-sandbox";
import { pauseSandbox } from "./pause-sandbox";
import { resumeSandbox } from "./resume-sandbox";
import { searchSandboxes } from "./search-sandboxes";
import { startSandbox } from "./start-sandbox";

export const sandboxesRouter = router({
  search: searchSandboxes,
  start: startSandbox,
  get: getSandbox,
  pause: pauseSandbox,
  resume: resumeSandbox,
  delete: deleteSandbox,
});

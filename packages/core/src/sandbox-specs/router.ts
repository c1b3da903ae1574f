import { router } from "../trpc";
import { searchSandboxSpecs } from "./search-sandbox-specs";

export const sandboxSpecsRouter = router({ search: searchSandboxSpecs });

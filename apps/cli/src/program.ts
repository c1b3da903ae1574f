import { Command } from "commander";
import { registerConversations } from "./commands/conversations";
import { registerSandboxes } from "./commands/sandboxes";
import { registerStart } from "./commands/start";
import { registerApiKeys, registerUsers } from "./commands/users";
import { DEFAULT_SERVER_URL } from "./connection";
import type { CommandContext } from "./context";

export const VERSION = "0.1.0";

/** The whole command tree: `sandbox-server <noun> <verb>`. */
export function createProgram(ctx: CommandContext): Command {
  const program = new Command("sandbox-server")
    .description(
      "Command-line tool of Sandbox Server: start the control plane, manage sandboxes, talk to agents.",
    )
    .version(VERSION)
    .showSuggestionAfterError()
    .addHelpText(
      "after",
      `
Environment:
  SANDBOX_SERVER_URL  the control plane (default ${DEFAULT_SERVER_URL})
  SANDBOX_API_KEY     your API key (default: the admin key file $DATA_DIR/admin-api-key,
                      else ./.data/admin-api-key)

Examples:
  sandbox-server start --runtime process
  sandbox-server sandboxes create --wait
  sandbox-server conversations create --message "uname -a" --wait
  sandbox-server conversations events <id> --follow`,
    );
  registerStart(program, ctx);
  registerSandboxes(program, ctx);
  registerConversations(program, ctx);
  registerUsers(program, ctx);
  registerApiKeys(program, ctx);
  return program;
}

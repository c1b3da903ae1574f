import type { Command } from "commander";
import type { CommandContext, JsonOption } from "../context";
import { printFields, printJson, printTable, shortTime } from "../output";

interface CreateUserOptions extends JsonOption {
  admin?: boolean;
}

/** A key is shown once, by the call that created it: say so beside it. */
function printNewKey(ctx: CommandContext, apiKey: string) {
  ctx.out.write(`\nAPI key (shown only now; store it safely):\n${apiKey}\n`);
}

export function registerUsers(program: Command, ctx: CommandContext): void {
  const users = program.command("users").description("users of the control plane");

  users
    .command("create")
    .description("create a user and their first API key (admins only)")
    .argument("<name>", "the user's name")
    .option("--admin", "make the user an admin")
    .option("--json", "print JSON, including the API key (for scripts)")
    .action(async (name: string, options: CreateUserOptions) => {
      const user = await ctx.session.client().users.create.mutate({
        name,
        is_admin: options.admin ?? false,
      });
      if (options.json) {
        printJson(ctx.out, user);
        return;
      }
      printFields(ctx.out, [
        ["id", user.id],
        ["name", user.name],
        ["admin", user.is_admin ? "yes" : "no"],
        ["created", shortTime(user.created_at)],
      ]);
      printNewKey(ctx, user.api_key);
    });

  users
    .command("me")
    .description("show the user behind the API key in use")
    .option("--json", "print JSON (for scripts)")
    .action(async (options: JsonOption) => {
      const me = await ctx.session.client().users.me.query({});
      if (options.json) printJson(ctx.out, me);
      else
        printFields(ctx.out, [
          ["id", me.id],
          ["name", me.name],
          ["admin", me.is_admin ? "yes" : "no"],
        ]);
    });
}

export function registerApiKeys(program: Command, ctx: CommandContext): void {
  const keys = program.command("api-keys").description("your own API keys");

  keys
    .command("create")
    .description("create another API key for yourself (e.g. one per machine or CI job)")
    .argument("<name>", "a name to tell the key apart")
    .option("--json", "print JSON, including the API key (for scripts)")
    .action(async (name: string, options: JsonOption) => {
      const key = await ctx.session.client().users.createApiKey.mutate({ name });
      if (options.json) {
        printJson(ctx.out, key);
        return;
      }
      printFields(ctx.out, [
        ["id", key.id],
        ["name", key.name],
        ["prefix", key.prefix],
      ]);
      printNewKey(ctx, key.api_key);
    });

  keys
    .command("list")
    .description("list your API keys (never the keys themselves)")
    .option("--json", "print a JSON array (for scripts)")
    .action(async (options: JsonOption) => {
      const { items } = await ctx.session.client().users.listApiKeys.query({});
      if (options.json) {
        printJson(ctx.out, items);
        return;
      }
      printTable(ctx.out, items, [
        { header: "ID", value: (k) => k.id },
        { header: "NAME", value: (k) => k.name },
        { header: "PREFIX", value: (k) => k.prefix },
        { header: "CREATED", value: (k) => shortTime(k.created_at) },
        { header: "CURRENT", value: (k) => (k.current ? "*" : "") },
      ]);
    });

  keys
    .command("revoke")
    .description("revoke one of your API keys (effective at once; not your last one)")
    .argument("<id>", "the key's id (see `api-keys list`)")
    .option("--json", "print JSON (for scripts)")
    .action(async (id: string, options: JsonOption) => {
      const result = await ctx.session.client().users.revokeApiKey.mutate({ id });
      if (options.json) printJson(ctx.out, result);
      else ctx.out.write(`revoked ${result.id}\n`);
    });
}

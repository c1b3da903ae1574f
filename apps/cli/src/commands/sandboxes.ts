import {
  type RouterInputs,
  type Sandbox,
  type SandboxStatus,
  waitForSandboxStatus,
} from "@sandbox-server/client";
import { type Command, Option } from "commander";
import type { CommandContext, JsonOption } from "../context";
import { printJson, printTable } from "../output";
import {
  collectList,
  collectPair,
  pageSize,
  positiveNumber,
  sandboxPort,
  wholeSeconds,
} from "../parse";
import { formatNetwork, printSandbox, sandboxColumns } from "./render";

const statuses: SandboxStatus[] = ["STARTING", "RUNNING", "PAUSED", "STOPPING", "ERROR"];

interface ListOptions extends JsonOption {
  status?: SandboxStatus;
  spec?: string;
  label?: string;
  limit: number;
  all?: boolean;
}

interface NetworkOptions {
  internet?: boolean;
  allowOut?: string[];
  denyOut?: string[];
  clearAllowOut?: boolean;
  clearDenyOut?: boolean;
}

interface CreateOptions extends JsonOption, NetworkOptions {
  spec?: string;
  label?: Record<string, string>;
  env?: Record<string, string>;
  wait?: boolean;
  timeout: number;
  activeTimeout?: number;
  onTimeout?: "pause" | "delete";
  idlePauseAfter?: number;
  deletePausedAfter?: number;
  port?: Record<string, string>;
  autoResume?: boolean;
}

interface PortOptions extends JsonOption {
  expiresIn?: number;
}

/** `--port NAME=PORT` pairs as the create takes them. */
function declaredPorts(pairs: Record<string, string> | undefined) {
  if (!pairs) return undefined;
  return Object.entries(pairs).map(([name, port]) => ({ name, port: sandboxPort(port) }));
}

type NetworkInput = NonNullable<RouterInputs["sandboxes"]["start"]["network"]>;

/** The fields the options set; undefined when they set none (the spec's default then holds). */
function networkInput(options: NetworkOptions): NetworkInput | undefined {
  const input: NetworkInput = {
    ...(options.internet !== undefined ? { allow_internet: options.internet } : {}),
    ...(options.allowOut || options.clearAllowOut ? { allow_out: options.allowOut ?? [] } : {}),
    ...(options.denyOut || options.clearDenyOut ? { deny_out: options.denyOut ?? [] } : {}),
  };
  return Object.keys(input).length > 0 ? input : undefined;
}

/** The egress options of `create` and `network`. */
function withNetworkOptions(command: Command): Command {
  return command
    .option("--internet", "allow public destinations (the default unless the spec says otherwise)")
    .option("--no-internet", "allow only what --allow-out names")
    .option(
      "--allow-out <entry>",
      "always allow a destination: pypi.org, *.github.com, 10.0.0.0/8, [::1]:11434 (repeatable)",
      collectList,
    )
    .option(
      "--deny-out <entry>",
      "refuse a destination unless --allow-out names it (repeatable)",
      collectList,
    );
}

interface WaitOptions extends JsonOption {
  status: SandboxStatus[];
  timeout: number;
}

function show(ctx: CommandContext, sandbox: Sandbox, options: JsonOption) {
  if (options.json) printJson(ctx.out, sandbox);
  else printSandbox(ctx.out, sandbox);
}

async function listSandboxes(ctx: CommandContext, options: ListOptions) {
  const client = ctx.session.client();
  const items: Sandbox[] = [];
  let pageId: string | undefined;
  do {
    const input: RouterInputs["sandboxes"]["search"] = {
      status: options.status,
      sandbox_spec_id: options.spec,
      label: options.label,
      limit: options.limit,
      page_id: pageId,
    };
    const page = await client.sandboxes.search.query(input);
    items.push(...page.items);
    pageId = options.all ? (page.next_page_id ?? undefined) : undefined;
  } while (pageId);
  if (options.json) printJson(ctx.out, items);
  else printTable(ctx.out, items, sandboxColumns);
}

export function registerSandboxes(program: Command, ctx: CommandContext): void {
  const sandboxes = program
    .command("sandboxes")
    .description("start, list, pause, resume and delete sandboxes");

  sandboxes
    .command("list")
    .description("list your sandboxes, newest first")
    .addOption(new Option("--status <status>", "only sandboxes in this status").choices(statuses))
    .option("--spec <id>", "only sandboxes of this sandbox spec")
    .option("--label <label>", "only sandboxes with this label: key or key=value")
    .option("--limit <n>", "page size, 1..100", pageSize, 100)
    .option("--all", "follow every page, not only the first")
    .option("--json", "print a JSON array (for scripts)")
    .action((options: ListOptions) => listSandboxes(ctx, options));

  const create = sandboxes
    .command("create")
    .description("start a sandbox (STARTING at once; RUNNING once its agent server answers)")
    .option("--spec <id>", "sandbox spec to start from (default: the built-in spec)")
    .option("--label <key=value>", "a label, repeatable", collectPair)
    .option(
      "--env <KEY=VALUE>",
      "an environment variable for the sandbox, repeatable",
      collectPair,
    );
  withNetworkOptions(create)
    .option("--wait", "wait until it is RUNNING")
    .option("--timeout <seconds>", "how long --wait waits", positiveNumber, 60)
    .option(
      "--active-timeout <seconds>",
      "timeout_s: active time allowed (paused time does not count)",
      wholeSeconds,
    )
    .addOption(
      new Option("--on-timeout <action>", "what the timeout does (default pause)").choices([
        "pause",
        "delete",
      ]),
    )
    .option("--idle-pause-after <seconds>", "pause after this long without activity", wholeSeconds)
    .option("--delete-paused-after <seconds>", "delete once PAUSED this long", wholeSeconds)
    .option(
      "--port <NAME=PORT>",
      "list a port in exposed_urls with a signed URL, e.g. VSCODE=8080 (repeatable)",
      collectPair,
    )
    .option("--auto-resume", "opening a port URL while PAUSED resumes the sandbox")
    .option("--json", "print JSON (for scripts)")
    .action(async (options: CreateOptions) => {
      const client = ctx.session.client();
      let sandbox = await client.sandboxes.start.mutate({
        sandbox_spec_id: options.spec,
        labels: options.label,
        env: options.env,
        network: networkInput(options),
        timeout_s: options.activeTimeout,
        on_timeout: options.onTimeout,
        idle_pause_after_s: options.idlePauseAfter,
        delete_paused_after_s: options.deletePausedAfter,
        ports: declaredPorts(options.port),
        auto_resume: options.autoResume,
      });
      if (options.wait) {
        sandbox = await waitForSandboxStatus(client, sandbox.id, "RUNNING", {
          timeoutMs: options.timeout * 1000,
          signal: ctx.signal,
        });
      }
      show(ctx, sandbox, options);
    });

  sandboxes
    .command("get")
    .description("show one sandbox")
    .argument("<id>", "sandbox id")
    .option("--json", "print JSON, including the agent server's session key (for scripts)")
    .action(async (id: string, options: JsonOption) => {
      show(ctx, await ctx.session.client().sandboxes.get.query({ id }), options);
    });

  for (const [verb, description] of [
    ["pause", "pause a RUNNING sandbox (its processes are frozen)"],
    ["resume", "resume a PAUSED (or ERROR) sandbox and wait until it runs"],
  ] as const) {
    sandboxes
      .command(verb)
      .description(description)
      .argument("<id>", "sandbox id")
      .option("--json", "print JSON (for scripts)")
      .action(async (id: string, options: JsonOption) => {
        show(ctx, await ctx.session.client().sandboxes[verb].mutate({ id }), options);
      });
  }

  const network = sandboxes
    .command("network")
    .description(
      "show a sandbox's egress policy, or change it (RUNNING or PAUSED): the options given replace those fields",
    )
    .argument("<id>", "sandbox id");
  withNetworkOptions(network)
    .option("--clear-allow-out", "remove every --allow-out entry")
    .option("--clear-deny-out", "remove every --deny-out entry")
    .option("--json", "print JSON (for scripts)")
    .action(async (id: string, options: NetworkOptions & JsonOption) => {
      const client = ctx.session.client();
      const input = networkInput(options);
      const sandbox = input
        ? await client.sandboxes.updateNetwork.mutate({ id, ...input })
        : await client.sandboxes.get.query({ id });
      if (options.json) printJson(ctx.out, sandbox.network);
      else ctx.out.write(`${formatNetwork(sandbox.network)}\n`);
    });

  sandboxes
    .command("timeout")
    .description("allow a sandbox <seconds> of active time from now (extends or shortens)")
    .argument("<id>", "sandbox id")
    .argument("<seconds>", "active time allowed from now", wholeSeconds)
    .option("--json", "print JSON (for scripts)")
    .action(async (id: string, seconds: number, options: JsonOption) => {
      const client = ctx.session.client();
      show(ctx, await client.sandboxes.setTimeout.mutate({ id, timeout_s: seconds }), options);
    });

  sandboxes
    .command("port")
    .description("print a signed URL to a port of a sandbox (HTTP and WebSocket, no key needed)")
    .argument("<id>", "sandbox id")
    .argument("<port>", "the port inside the sandbox", sandboxPort)
    .option(
      "--expires-in <seconds>",
      "how long the URL works (default 3600, at most 7 days)",
      wholeSeconds,
    )
    .option("--json", "print {port, url, expires_at} (for scripts)")
    .action(async (id: string, port: number, options: PortOptions) => {
      const signed = await ctx.session.client().sandboxes.getPort.query({
        id,
        port,
        expires_in_s: options.expiresIn,
      });
      if (options.json) printJson(ctx.out, signed);
      else ctx.out.write(`${signed.url}\n`);
    });

  sandboxes
    .command("delete")
    .description("stop and remove a sandbox; its conversations become archived")
    .argument("<id>", "sandbox id")
    .option("--json", "print JSON (for scripts)")
    .action(async (id: string, options: JsonOption) => {
      const result = await ctx.session.client().sandboxes.delete.mutate({ id });
      if (options.json) printJson(ctx.out, result);
      else ctx.out.write(`deleted ${result.id}\n`);
    });

  sandboxes
    .command("wait")
    .description("wait until a sandbox reaches a status; fails on timeout or when it is ERROR")
    .argument("<id>", "sandbox id")
    .addOption(
      new Option("--status <status...>", "the status to wait for (several: any of them)")
        .choices(statuses)
        .default(["RUNNING"]),
    )
    .option("--timeout <seconds>", "give up after this long", positiveNumber, 60)
    .option("--json", "print JSON (for scripts)")
    .action(async (id: string, options: WaitOptions) => {
      const sandbox = await waitForSandboxStatus(ctx.session.client(), id, options.status, {
        timeoutMs: options.timeout * 1000,
        signal: ctx.signal,
      });
      if (options.json) printJson(ctx.out, sandbox);
      else ctx.out.write(`${sandbox.id} ${sandbox.status}\n`);
    });
}

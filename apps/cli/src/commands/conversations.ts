import {
  type AppConversation,
  followConversationEvents,
  waitForConversationSettled,
} from "@sandbox-server/client";
import type { Command } from "commander";
import type { CommandContext, JsonOption } from "../context";
import { printJson, printTable } from "../output";
import { pageSize, positiveNumber } from "../parse";
import { eventLine } from "./event-line";
import { conversationColumns, printConversation } from "./render";

interface CreateOptions extends JsonOption {
  sandbox?: string;
  spec?: string;
  title?: string;
  message?: string;
  wait?: boolean;
  timeout: number;
}

interface ListOptions extends JsonOption {
  sandbox?: string;
  archived?: boolean;
  title?: string;
  limit: number;
  all?: boolean;
}

interface SendOptions extends JsonOption {
  run: boolean;
}

interface EventsOptions extends JsonOption {
  follow?: boolean;
  kind?: string;
  interval: number;
}

function textMessage(text: string, run: boolean) {
  return { role: "user" as const, content: [{ type: "text" as const, text }], run };
}

async function listConversations(ctx: CommandContext, options: ListOptions) {
  const client = ctx.session.client();
  const items: AppConversation[] = [];
  let pageId: string | undefined;
  do {
    const page = await client.conversations.search.query({
      sandbox_id: options.sandbox,
      archived: options.archived === undefined ? undefined : options.archived ? "true" : "false",
      title__contains: options.title,
      limit: options.limit,
      page_id: pageId,
    });
    items.push(...page.items);
    pageId = options.all ? (page.next_page_id ?? undefined) : undefined;
  } while (pageId);
  if (options.json) printJson(ctx.out, items);
  else printTable(ctx.out, items, conversationColumns);
}

async function printEvents(ctx: CommandContext, id: string, options: EventsOptions) {
  const events = followConversationEvents(ctx.session.client(), id, {
    kind: options.kind,
    once: !options.follow,
    intervalMs: options.interval * 1000,
    signal: ctx.signal,
  });
  for await (const event of events) {
    // One JSON object per line, so `--follow --json` can be read as it streams.
    ctx.out.write(options.json ? `${JSON.stringify(event)}\n` : `${eventLine(event)}\n`);
  }
}

export function registerConversations(program: Command, ctx: CommandContext): void {
  const conversations = program
    .command("conversations")
    .description("create conversations with agents, send messages, read events");

  conversations
    .command("create")
    .description("create a conversation (in a new sandbox unless --sandbox is given)")
    .option("--sandbox <id>", "add it to this RUNNING sandbox instead of starting one")
    .option("--spec <id>", "sandbox spec of the new sandbox")
    .option("--title <title>", "a title (default: taken from the first message)")
    .option("--message <text>", "a first message; the agent starts on it")
    .option("--wait", "wait until the agent has finished with --message")
    .option("--timeout <seconds>", "how long --wait waits", positiveNumber, 120)
    .option("--json", "print JSON, including the agent server's session key (for scripts)")
    .action(async (options: CreateOptions) => {
      const client = ctx.session.client();
      let conversation: AppConversation = await client.conversations.create.mutate({
        sandbox_id: options.sandbox,
        sandbox_spec_id: options.spec,
        title: options.title,
        initial_message:
          options.message === undefined ? undefined : textMessage(options.message, true),
      });
      if (options.wait) {
        conversation = await waitForConversationSettled(client, conversation.id, {
          timeoutMs: options.timeout * 1000,
          signal: ctx.signal,
        });
      }
      if (options.json) printJson(ctx.out, conversation);
      else printConversation(ctx.out, conversation);
    });

  conversations
    .command("list")
    .description("list your conversations, newest first")
    .option("--sandbox <id>", "only conversations of this sandbox")
    .option("--archived", "only archived conversations (their sandbox is gone)")
    .option("--no-archived", "only conversations whose sandbox exists")
    .option("--title <text>", "only titles containing this text")
    .option("--limit <n>", "page size, 1..100", pageSize, 100)
    .option("--all", "follow every page, not only the first")
    .option("--json", "print a JSON array (for scripts)")
    .action((options: ListOptions) => listConversations(ctx, options));

  conversations
    .command("get")
    .description("show one conversation")
    .argument("<id>", "conversation id")
    .option("--json", "print JSON, including the agent server's session key (for scripts)")
    .action(async (id: string, options: JsonOption) => {
      const conversation = await ctx.session.client().conversations.get.query({ id });
      if (options.json) printJson(ctx.out, conversation);
      else printConversation(ctx.out, conversation);
    });

  conversations
    .command("send")
    .description("send a message to the agent (through the control plane's proxy)")
    .argument("<id>", "conversation id")
    .argument("<text>", "the message")
    .option("--no-run", "only add the message; do not start the agent")
    .option("--json", "print JSON (for scripts)")
    .action(async (id: string, text: string, options: SendOptions) => {
      const sent = await ctx.session.client().conversations.sendMessage.mutate({
        conversation_id: id,
        ...textMessage(text, options.run),
      });
      if (options.json) printJson(ctx.out, sent);
      else ctx.out.write(`sent (sandbox ${sent.sandbox_status})\n`);
    });

  conversations
    .command("events")
    .description("print a conversation's events, oldest first; --follow keeps printing new ones")
    .argument("<id>", "conversation id")
    .option("-f, --follow", "keep printing new events until Ctrl-C")
    .option("--kind <kind>", "only events of this kind, e.g. MessageEvent")
    .option("--interval <seconds>", "how often --follow asks for new events", positiveNumber, 1)
    .option("--json", "print one JSON object per line (for scripts)")
    .action((id: string, options: EventsOptions) => printEvents(ctx, id, options));
}

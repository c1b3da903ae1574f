import { z } from "zod";

/** Command contracts of the agent server (`/api/bash`). */
export const ExecuteBashRequest = z.object({
  command: z.string().min(1),
  cwd: z.string().min(1).nullish(),
  /** Seconds; on expiry the whole process group is killed and exit_code is -1. */
  timeout: z.number().positive().max(86_400).default(300),
});
export type ExecuteBashRequest = z.infer<typeof ExecuteBashRequest>;

export const BashCommand = z.object({
  id: z.string(),
  timestamp: z.string(),
  kind: z.literal("BashCommand"),
  command: z.string(),
  cwd: z.string(),
  timeout: z.number(),
});
export type BashCommand = z.infer<typeof BashCommand>;

/** One chunk of output; the last one of a command has a non-null exit_code. */
export const BashOutput = z.object({
  id: z.string(),
  timestamp: z.string(),
  kind: z.literal("BashOutput"),
  command_id: z.string(),
  order: z.int(),
  exit_code: z.int().nullable(),
  stdout: z.string().nullable(),
  stderr: z.string().nullable(),
});
export type BashOutput = z.infer<typeof BashOutput>;

export const BashEvent = z.discriminatedUnion("kind", [BashCommand, BashOutput]);
export type BashEvent = z.infer<typeof BashEvent>;

export const BashEventPage = z.object({
  items: z.array(BashEvent),
  next_page_id: z.string().nullable(),
});
export type BashEventPage = z.infer<typeof BashEventPage>;

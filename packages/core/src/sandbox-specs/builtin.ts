import type { SandboxSpecRow } from "@sandbox-server/db";
import { DEFAULT_SANDBOX_IMAGE } from "@sandbox-server/runtime";

export const DEFAULT_SPEC_ID = "default";

/** The built-in spec: this project's own agent server, as a process or in its image. */
export function builtinSpecs(now: number, image = DEFAULT_SANDBOX_IMAGE): SandboxSpecRow[] {
  return [
    {
      id: DEFAULT_SPEC_ID,
      name: "Agent server",
      description: "This project's agent server with the shell and llm agents",
      runtime: "any",
      image,
      command: null,
      workingDir: null,
      initialEnv: {},
      cpu: 1,
      memoryMb: 1024,
      pids: 512,
      network: null,
      createdAt: now,
      lifetime: null,
    },
  ];
}

import { run, runStatus } from "./run";

/** The Docker CLI; its trimmed stdout, or an error with its output. */
export async function docker(...args: string[]): Promise<string> {
  return (await run("docker", args)).trim();
}

/** Whether a Docker daemon answers. */
export async function dockerAnswers(): Promise<boolean> {
  return (await runStatus("docker", ["info"]).catch(() => ({ code: 1 }))).code === 0;
}

export async function imageExists(image: string): Promise<boolean> {
  return (await runStatus("docker", ["image", "inspect", image])).code === 0;
}

/** Every line of a `docker ... ls/ps --format` listing, none when it is empty. */
export async function dockerLines(...args: string[]): Promise<string[]> {
  const out = await docker(...args);
  return out ? out.split("\n") : [];
}

/** The line that marks the fenced block after it as part of the README's tested walkthrough. */
export const README_TEST_MARK = "<!-- readme-test -->";

/** The bodies of the fenced blocks marked with README_TEST_MARK, in the README's order. */
export function readmeTestBlocks(markdown: string): string[] {
  const blocks: string[] = [];
  let marked = false;
  let body: string[] | null = null;
  for (const line of markdown.split("\n")) {
    if (body !== null) {
      if (line.startsWith("```")) {
        blocks.push(body.join("\n"));
        body = null;
        marked = false;
      } else {
        body.push(line);
      }
    } else if (line === README_TEST_MARK) {
      marked = true;
    } else if (marked && line.startsWith("```")) {
      body = [];
    }
  }
  return blocks;
}

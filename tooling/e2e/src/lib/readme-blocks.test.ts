import { describe, expect, it } from "vitest";
import { README_TEST_MARK, readmeTestBlocks } from "./readme-blocks";

describe("readmeTestBlocks", () => {
  it("takes the marked blocks, in order, and leaves the unmarked ones", () => {
    const markdown = [
      "# Title",
      README_TEST_MARK,
      "```bash",
      "echo one",
      "echo two",
      "```",
      "```bash",
      "echo unmarked",
      "```",
      README_TEST_MARK,
      "",
      "```sh",
      "echo three",
      "```",
    ].join("\n");
    expect(readmeTestBlocks(markdown)).toEqual(["echo one\necho two", "echo three"]);
  });
});

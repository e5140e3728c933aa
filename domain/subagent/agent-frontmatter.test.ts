import { describe, expect, it } from "vitest";
import { parseFrontmatter } from "./agent-frontmatter.ts";

describe("parseFrontmatter", () => {
  it("splits the block from the trimmed body like pi (CRLF normalised)", () => {
    const parsed = parseFrontmatter("---\r\nname: scout\r\ndescription: Fast recon\r\n---\r\n\r\nYou are a scout.\r\n");
    expect(parsed).toEqual({
      hasFrontmatter: true,
      fields: { name: "scout", description: "Fast recon" },
      body: "You are a scout.",
    });
  });

  it("has no frontmatter without a leading or a closing ---", () => {
    expect(parseFrontmatter("name: x\n---\nbody")).toEqual({ hasFrontmatter: false, fields: {}, body: "name: x\n---\nbody" });
    expect(parseFrontmatter("---\nname: x\nbody")).toMatchObject({ hasFrontmatter: false, fields: {} });
  });

  it("reads plain, quoted and commented scalars, keeping colons inside values", () => {
    const { fields } = parseFrontmatter(
      [
        "---",
        "# a comment",
        "name: reviewer # trailing comment",
        "description: Reviews code: quality, security",
        'model: "anthropic/claude-sonnet-4-5"',
        "thinking: 'high'",
        "quote: 'it''s'",
        'escaped: "a\\"b\\u00e9\\n"',
        "url: http://example.org/#anchor",
        "empty:",
        "nulled: ~",
        "---",
        "",
      ].join("\n"),
    );
    expect(fields).toEqual({
      name: "reviewer",
      description: "Reviews code: quality, security",
      model: "anthropic/claude-sonnet-4-5",
      thinking: "high",
      quote: "it's",
      escaped: 'a"bé\n',
      url: "http://example.org/#anchor",
    });
  });

  it("reads flow and block sequences, indented or not", () => {
    const { fields } = parseFrontmatter(
      ["---", "a: [read, \"grep, find\", 'ls']", "b:", "  - read", "  - bash", "c:", "- x", "- 'y'", "d: read, bash", "---"].join("\n"),
    );
    expect(fields).toEqual({ a: ["read", "grep, find", "ls"], b: ["read", "bash"], c: ["x", "y"], d: "read, bash" });
  });

  it("reads block scalars and folded plain continuation lines", () => {
    const { fields } = parseFrontmatter(
      [
        "---",
        "literal: |",
        "  line one",
        "    indented",
        "",
        "  line three",
        "folded: >-",
        "  one",
        "  two",
        "",
        "  para",
        "plain: first",
        "  second",
        "next: n",
        "---",
      ].join("\n"),
    );
    expect(fields).toEqual({
      literal: "line one\n  indented\n\nline three",
      folded: "one two\npara",
      plain: "first second",
      next: "n",
    });
  });

  it("drops what the subset cannot read instead of throwing, and the last duplicate key wins", () => {
    const { fields } = parseFrontmatter(
      ["---", "nested:", "  inner: 1", "map: {a: 1}", 'bad: "unclosed', "list: [a, b", "name: a", "name: b", "---"].join("\n"),
    );
    expect(fields).toEqual({ name: "b" });
  });
});

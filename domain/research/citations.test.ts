import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { extractNumericCitations, validateReportCitations } from "./citations.ts";
import type { ResearchSource } from "./research-types.ts";

function source(id: number, fields: Partial<ResearchSource>): ResearchSource {
  return {
    id,
    key: "",
    url: "",
    path: "",
    title: `S${id}`,
    publisher: "",
    publishedAt: "",
    kind: "web",
    status: "candidate",
    threadIds: [],
    claim: "",
    evidence: "",
    exclusionReason: "",
    ...fields,
  };
}

const ledger: ResearchSource[] = [
  source(1, { url: "https://example.com/a" }),
  source(2, { path: "./docs/notes.md", kind: "file" }),
  source(3, { url: "https://example.com/b?x=1", status: "excluded", exclusionReason: "weak" }),
  source(4, { url: "https://en.wikipedia.org/wiki/Foo_(bar)", path: "local/foo.md" }),
];

describe("extractNumericCitations", () => {
  it("finds [n](target) and [[n]](target) with titles, angle brackets and balanced parentheses", () => {
    const links = extractNumericCitations(
      'A [1](https://example.com/a "A"). B [[2]](<docs/notes.md>). C [4](https://en.wikipedia.org/wiki/Foo_(bar)).',
    );
    expect(links.map((l) => [l.n, l.target, l.text])).toEqual([
      [1, "https://example.com/a", '[1](https://example.com/a "A")'],
      [2, "docs/notes.md", "[[2]](<docs/notes.md>)"],
      [4, "https://en.wikipedia.org/wiki/Foo_(bar)", "[4](https://en.wikipedia.org/wiki/Foo_(bar))"],
    ]);
  });

  it("ignores code spans, fenced code, images, escapes, reference links and non-numeric links", () => {
    const markdown = [
      "`[1](https://x.com)` and ``code [2](y) ``",
      "```md",
      "[3](https://in.fence)",
      "```",
      "~~~",
      "[4](z)",
      "~~~",
      "![5](img.png) \\[6](esc) [7] [a1](u) [8]: https://ref",
      "[9](https://kept.example)",
    ].join("\n");
    expect(extractNumericCitations(markdown).map((l) => l.n)).toEqual([9]);
  });

  it("does not take an unclosed link", () => {
    expect(extractNumericCitations("see [1](https://example.com/a and more")).toEqual([]);
  });
});

describe("validateReportCitations", () => {
  it("accepts citations that match a non-excluded source by canonical URL or path", () => {
    const result = validateReportCitations(
      "One [1](https://example.com/a/#intro). Two [2](docs/notes.md). Four [4](./local/foo.md).",
      ledger,
    );
    expect(result.errors).toEqual([]);
    expect(result.valid).toBe(true);
    expect(result.citedSourceIds).toEqual([1, 2, 4]);
    expect(result.citations.every((c) => c.valid)).toBe(true);
  });

  it("names each invalid citation with its reason", () => {
    const result = validateReportCitations(
      "[1](https://example.com/a) [3](https://example.com/b?x=1) [1](https://example.com/b) [9](https://x.org) [1](https://example.com/a?x=1)",
      ledger,
    );
    expect(result.valid).toBe(false);
    expect(result.errors).toEqual([
      "Citation [3](https://example.com/b?x=1) cites excluded source 3",
      "Citation [1](https://example.com/b) does not match source 1",
      "Citation [9](https://x.org) names no ledger source 9",
      "Citation [1](https://example.com/a?x=1) does not match source 1",
    ]);
    expect(result.citedSourceIds).toEqual([1]);
    expect(result.citations.map((c) => c.valid)).toEqual([true, false, false, false, false]);
  });

  it("needs at least one valid citation when usable sources exist", () => {
    const result = validateReportCitations("A report without citations.", ledger);
    expect(result.valid).toBe(false);
    expect(result.errors).toEqual(["The report has no valid numeric citation of the 3 usable ledger sources"]);
  });

  it("accepts an uncited report when every source is excluded or the ledger is empty", () => {
    expect(validateReportCitations("No sources.", []).valid).toBe(true);
    expect(validateReportCitations("No sources.", [ledger[2]!]).valid).toBe(true);
  });

  it("does not match a URL target against a path source or the reverse", () => {
    const result = validateReportCitations("[2](https://example.com/docs/notes.md) [1](example.com/a)", ledger);
    expect(result.citations.map((c) => c.valid)).toEqual([false, false]);
  });
});

// ---------------------------------------------------------------------------------------------------------
// Agreement with an independent model: reports are built from tokens whose validity is known by
// construction (which source a target was derived from, and how).
// ---------------------------------------------------------------------------------------------------------

type TargetVariant = "exact" | "fragment" | "slash" | "dotSlash" | "otherQuery" | "otherHost" | "garbage";
interface Token {
  kind: "text" | "cite" | "code";
  n: number;
  variant: TargetVariant;
  double: boolean;
  word: string;
}

const MODEL_LEDGER: ResearchSource[] = [
  source(1, { url: "https://example.com/a" }),
  source(2, { url: "https://example.com/b?q=1" }),
  source(3, { path: "docs/c.md", kind: "file" }),
  source(4, { url: "https://example.com/d", status: "excluded" }),
  source(5, { path: "./src/e.ts", kind: "file" }),
];

function targetFor(n: number, variant: TargetVariant): string {
  const s = MODEL_LEDGER.find((x) => x.id === n);
  const base = s ? s.url || s.path : "https://nowhere.example/x";
  const isUrl = base.startsWith("http");
  switch (variant) {
    case "exact":
      return base;
    case "fragment":
      return isUrl ? `${base}#part` : base;
    case "slash":
      return isUrl ? (base.includes("?") ? base.replace("?", "/?") : `${base}/`) : base;
    case "dotSlash":
      return isUrl ? base : base.startsWith("./") ? base.slice(2) : `./${base}`;
    case "otherQuery":
      return isUrl ? `${base}${base.includes("?") ? "&" : "?"}z=9` : `${base}.bak`;
    case "otherHost":
      return "https://other.example/a";
    case "garbage":
      return "not-a-source";
  }
}

/** The model: a citation is valid iff its source exists, is not excluded, and the variant preserves identity. */
function modelValid(token: Token): boolean {
  const s = MODEL_LEDGER.find((x) => x.id === token.n);
  if (!s || s.status === "excluded") return false;
  return ["exact", "fragment", "slash", "dotSlash"].includes(token.variant);
}

const arbToken: fc.Arbitrary<Token> = fc.record({
  kind: fc.constantFrom("text", "cite", "cite", "code"),
  n: fc.integer({ min: 1, max: 7 }),
  variant: fc.constantFrom<TargetVariant>("exact", "fragment", "slash", "dotSlash", "otherQuery", "otherHost", "garbage"),
  double: fc.boolean(),
  word: fc.constantFrom("claim", "results show", "—", "(see)", "x]"),
});

function render(token: Token): string {
  const link = `${token.double ? `[[${token.n}]]` : `[${token.n}]`}(${targetFor(token.n, token.variant)})`;
  if (token.kind === "text") return token.word;
  if (token.kind === "code") return `\`${link}\``;
  return link;
}

describe("citation validation agrees with a simple model", () => {
  it("per citation validity, cited ids and the overall verdict", () => {
    fc.assert(
      fc.property(fc.array(arbToken, { maxLength: 15 }), fc.boolean(), (tokens, fenced) => {
        const body = tokens.map(render).join(" ");
        const markdown = fenced ? `${body}\n\n\`\`\`\n[1](https://other.example/a)\n\`\`\`\n` : body;
        const result = validateReportCitations(markdown, MODEL_LEDGER);
        const cites = tokens.filter((t) => t.kind === "cite");
        expect(result.citations.map((c) => [c.n, c.valid])).toEqual(cites.map((t) => [t.n, modelValid(t)]));
        const expectedIds = [...new Set(cites.filter(modelValid).map((t) => t.n))].sort((a, b) => a - b);
        expect(result.citedSourceIds).toEqual(expectedIds);
        const expectedValid = cites.every(modelValid) && expectedIds.length > 0;
        expect(result.valid).toBe(expectedValid);
        expect(result.errors.length).toBe(cites.filter((t) => !modelValid(t)).length + (expectedIds.length ? 0 : 1));
      }),
    );
  });
});

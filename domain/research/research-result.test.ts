import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { TEXT_LIMITS } from "./research-normalize.ts";
import { boundedResearchResultText, parseResearchResult, RESEARCH_RESULT_MAX_CHARS, type ResearchResult } from "./research-result.ts";
import { registerSources } from "./source-ledger.ts";
import type { ResearchSource } from "./research-types.ts";

function block(value: unknown): string {
  return `<research_result>${JSON.stringify(value)}</research_result>`;
}

const SOURCE = {
  url: "https://example.org/zebras",
  title: "Zebra stripes",
  publisher: "Example",
  publishedAt: "2024-05-01",
  kind: "article",
  claim: "Stripes deter biting flies.",
  evidence: "Flies landed less often on striped coats.",
};

function parsedResult(text: string): ResearchResult {
  const parsed = parseResearchResult(text);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.result;
}

describe("parseResearchResult", () => {
  it("reads the block after the prose", () => {
    const text = `I read two pages.\n\n${block({ threadId: "t1", title: "Stripes", summary: "Flies avoid stripes.", sources: [SOURCE, { path: "./docs/notes.md", title: "Notes" }] })}`;
    expect(parseResearchResult(text)).toEqual({
      ok: true,
      result: {
        threadId: "t1",
        title: "Stripes",
        summary: "Flies avoid stripes.",
        sources: [SOURCE, { path: "./docs/notes.md", title: "Notes" }],
      },
    });
  });

  it("takes the last block", () => {
    const text = `Format: ${block({ threadId: "example", summary: "x" })}\nMy result:\n${block({ threadId: "t2", summary: "real" })}`;
    expect(parsedResult(text)).toMatchObject({ threadId: "t2", summary: "real" });
  });

  it("tolerates a ```json fence and whitespace inside the block", () => {
    const text = `<research_result>\n\`\`\`json\n${JSON.stringify({ threadId: "t3", summary: "fenced" }, null, 2)}\n\`\`\`\n</research_result>`;
    expect(parsedResult(text)).toMatchObject({ threadId: "t3", summary: "fenced", title: "", sources: [] });
    expect(parsedResult(`<research_result>\`\`\`{"threadId":"t4"}\`\`\`</research_result>`).threadId).toBe("t4");
  });

  it("accepts an unclosed block at the end when there is no closed one", () => {
    expect(parsedResult(`Done.\n<research_result>{"threadId":"t5","summary":"cut off"}`)).toMatchObject({ threadId: "t5" });
  });

  it("reports a missing block, invalid JSON and a missing threadId clearly", () => {
    expect(parseResearchResult("Just prose.")).toEqual({ ok: false, error: "no <research_result> block" });
    const invalid = parseResearchResult("<research_result>{threadId: t1}</research_result>");
    expect(invalid.ok).toBe(false);
    if (!invalid.ok) expect(invalid.error).toMatch(/^research_result is not valid JSON: /);
    expect(parseResearchResult(block({ summary: "x" }))).toEqual({ ok: false, error: "threadId missing" });
    expect(parseResearchResult(block({ threadId: "   " }))).toEqual({ ok: false, error: "threadId missing" });
    expect(parseResearchResult(block(["t1"]))).toEqual({ ok: false, error: "research_result is not a JSON object" });
    expect(parseResearchResult(block({ threadId: "t1", sources: "none" }))).toEqual({ ok: false, error: "sources is not an array" });
  });

  it("trims and bounds text with TEXT_LIMITS", () => {
    const long = "x".repeat(5000);
    const result = parsedResult(
      block({
        threadId: `  ${"t".repeat(50)}  `,
        title: long,
        summary: `  ${long}`,
        sources: [{ url: "https://e.org", title: long, publisher: long, publishedAt: long, kind: long, claim: long, evidence: long }],
      }),
    );
    expect(result.threadId).toHaveLength(TEXT_LIMITS.threadId);
    expect(result.title).toHaveLength(TEXT_LIMITS.threadTitle);
    expect(result.summary).toHaveLength(TEXT_LIMITS.threadSummary);
    expect(result.sources[0]).toEqual({
      url: "https://e.org",
      title: "x".repeat(TEXT_LIMITS.sourceTitle),
      publisher: "x".repeat(TEXT_LIMITS.publisher),
      publishedAt: "x".repeat(TEXT_LIMITS.publishedAt),
      kind: "x".repeat(TEXT_LIMITS.sourceKind),
      claim: "x".repeat(TEXT_LIMITS.claim),
      evidence: "x".repeat(TEXT_LIMITS.evidence),
    });
  });

  it("keeps every source in order, reads only the format's fields and keeps positions of bad entries", () => {
    const sources = Array.from({ length: 25 }, (_, i) => ({ url: `https://e.org/${i}`, id: 99, status: "excluded", threadId: "other" }));
    const result = parsedResult(block({ threadId: "t1", sources: [...sources, "not an object", { publishedAt: 2024 }] }));
    expect(result.sources).toHaveLength(27);
    expect(result.sources[0]).toEqual({ url: "https://e.org/0" });
    expect(result.sources[25]).toEqual({});
    expect(result.sources[26]).toEqual({ publishedAt: "2024" });
    // The ledger applies the limits and reports the rest by position.
    const { report } = registerSources({ sources: [] as ResearchSource[] }, result.threadId, result.sources);
    expect(report.added).toHaveLength(20);
    expect(report.rejected.map((r) => r.index)).toEqual([20, 21, 22, 23, 24, 25, 26]);
  });

  it("accepts a numeric threadId", () => {
    expect(parsedResult(block({ threadId: 3 })).threadId).toBe("3");
  });
});

describe("boundedResearchResultText", () => {
  it("returns a text within the limit unchanged", () => {
    const text = `Prose.\n${block({ threadId: "t1", summary: "  spaced  ", extra: true })}`;
    expect(boundedResearchResultText(text)).toBe(text);
  });

  it("cuts long prose before the block and keeps the block parseable", () => {
    const result = { threadId: "t1", title: "T", summary: "S", sources: [SOURCE] };
    const text = `${"word ".repeat(10_000)}\n${block(result)}`;
    const bounded = boundedResearchResultText(text);
    expect(bounded.length).toBeLessThanOrEqual(RESEARCH_RESULT_MAX_CHARS);
    expect(bounded).toMatch(/\[… \d+ more characters\]/);
    expect(bounded.startsWith("word word")).toBe(true);
    expect(parsedResult(bounded)).toEqual(result);
  });

  it("drops sources from the end when the block alone is too long, and says so", () => {
    const sources = Array.from({ length: 30 }, (_, i) => ({ ...SOURCE, url: `https://e.org/${i}`, evidence: "e".repeat(1900) }));
    const bounded = boundedResearchResultText(`Prose.\n${block({ threadId: "t1", summary: "S", sources })}`);
    expect(bounded.length).toBeLessThanOrEqual(RESEARCH_RESULT_MAX_CHARS);
    const kept = parsedResult(bounded).sources;
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.length).toBeLessThan(30);
    expect(kept.map((s) => s.url)).toEqual(sources.slice(0, kept.length).map((s) => s.url));
    expect(bounded).toContain(`[${30 - kept.length} sources left out to bound the research result]`);
  });

  it("cuts an answer without a valid block like prose", () => {
    const text = "x".repeat(30_000);
    const bounded = boundedResearchResultText(text);
    expect(bounded.length).toBeLessThanOrEqual(RESEARCH_RESULT_MAX_CHARS);
    expect(bounded).toMatch(/more characters\]$/);
  });

  it("law: a bounded text fits the limit and parses to the same result when the original's block fits", () => {
    const arbSource = fc.record({
      url: fc.webUrl(),
      title: fc.string({ maxLength: 40 }),
      claim: fc.string({ maxLength: 200 }),
      evidence: fc.string({ maxLength: 400 }),
    });
    fc.assert(
      fc.property(
        fc.string({ maxLength: 60_000 }),
        fc.string({ minLength: 1, maxLength: 20 }).filter((s) => s.trim() !== ""),
        fc.array(arbSource, { maxLength: 20 }),
        fc.integer({ min: 4_000, max: 30_000 }),
        (prose, threadId, sources, limit) => {
          const text = `${prose.replaceAll("<research_result>", "").replaceAll("</research_result>", "")}\n${block({ threadId, summary: "S", sources })}`;
          const bounded = boundedResearchResultText(text, limit);
          expect(bounded.length).toBeLessThanOrEqual(limit);
          const before = parsedResult(text);
          const after = parsedResult(bounded);
          expect(after.threadId).toBe(before.threadId);
          expect(after.sources).toEqual(before.sources.slice(0, after.sources.length));
          if (block(before).length < limit - 100) expect(after).toEqual(before);
        },
      ),
      { numRuns: 60 },
    );
  });
});

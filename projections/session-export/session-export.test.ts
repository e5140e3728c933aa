import { describe, expect, it } from "vitest";
import { CHILD_SESSION_PATH, HOSTILE, RESEARCH_SESSION_ID } from "../../test/support/research-session.ts";
import { assistantEntry, toEntries, userEntry } from "../../test/arbitraries/research.arbitrary.ts";
import { danglingAnchors, exportInputOf, externalReferences, foreignMarkup, researchExportInput } from "./export-html.fixture.ts";
import { sourceEvidenceSummary } from "./export-research.ts";
import { exportTitle, renderSessionExport } from "./session-export.ts";

const ESCAPED_HOSTILE = "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&lt;img src=&quot;http://evil.example/x.png&quot;&gt;";

describe("renderSessionExport (research session)", () => {
  const html = renderSessionExport(researchExportInput());

  it("is one self-contained document: inline style, nothing to fetch", () => {
    expect(html.startsWith("<!doctype html>")).toBe(true);
    expect(html).toContain("<style>");
    expect(html).toContain(`http-equiv="Content-Security-Policy" content="default-src 'none';`);
    expect(externalReferences(html)).toEqual([]);
    expect(html).not.toMatch(/src="http|<link|@import|url\(http/i);
  });

  it("escapes hostile text everywhere it appears", () => {
    expect(html).not.toContain(HOSTILE);
    expect(html).not.toMatch(/<script|<img src="http/i);
    // objective, user message, plan title, thread summary, source title, exclusion reason, report title and text
    expect(html.split(ESCAPED_HOSTILE).length - 1).toBeGreaterThanOrEqual(7);
    expect(foreignMarkup(html)).toEqual([]);
  });

  it("links every citation of the report artifact to an existing ledger anchor", () => {
    const report = /<section id="report">([\s\S]*?)<\/section>/.exec(html)?.[1] ?? "";
    expect(report).toContain('<a href="#source-1" class="citation" title="https://example.com/kettle">1</a>');
    expect(report).toContain('<a href="#source-2" class="citation" title="docs/notes.md">2</a>');
    // [3] cites an excluded source: still linked to its ledger entry, marked invalid
    expect(report).toContain('<a href="#source-3" class="citation invalid" title="https://paywall.example/x">3</a>');
    expect(report).toContain("cites excluded source 3");
    expect(report.match(/href="#source-1" class="citation"/g)).toHaveLength(2);
    for (const id of [1, 2, 3]) expect(html).toContain(`<li id="source-${id}"`);
    expect(danglingAnchors(html)).toEqual([]);
  });

  it("shows every ledger source with one evidence summary, the exclusion reason first", () => {
    const sources = /<section id="sources">([\s\S]*?)<\/section>/.exec(html)?.[1] ?? "";
    const items = sources.split("<li id=").slice(1);
    expect(items).toHaveLength(3);
    expect(items[0]).toContain("<strong>Evidence:</strong> Electric kettles convert 80 percent");
    expect(items[0]).not.toContain("Claim:");
    expect(items[1]).toContain("<strong>Claim:</strong> Stovetop kettles lose heat");
    expect(items[2]).toContain(`<strong>Excluded:</strong> Paywalled and unverifiable ${ESCAPED_HOSTILE}`);
    expect(items[2]).not.toContain("EVIDENCE-OF-EXCLUDED-SOURCE");
    expect(items.map((item) => item.match(/class="evidence"/g)?.length ?? 0)).toEqual([1, 1, 1]);
  });

  it("renders every thread result in the offline subagent inspector, with the child session path as text", () => {
    const threads = /<section id="threads">([\s\S]*?)<\/section>/.exec(html)?.[1] ?? "";
    expect(threads.match(/<details id="thread-/g)).toHaveLength(2);
    expect(threads).toContain(`<code>${CHILD_SESSION_PATH}</code>`);
    expect(threads).toContain("worker failed");
    expect(threads).toMatch(/<details id="thread-1-T1"[\s\S]*href="#source-1"[\s\S]*href="#source-3"/);
    // the subagent tool call in the transcript points at both threads
    const transcript = /<section id="transcript">([\s\S]*)<\/section>/.exec(html)?.[1] ?? "";
    expect(transcript).toContain('href="#thread-1-T1"');
    expect(transcript).toContain('href="#thread-2-T2"');
  });

  it("shows the support verdict of every cited sentence", () => {
    const support = /<table class="support">([\s\S]*?)<\/table>/.exec(html)?.[1] ?? "";
    const rows = support.split("<tr>").slice(2);
    expect(rows).toHaveLength(4);
    expect(rows.map((row) => /class="verdict-([a-z-]+)"/.exec(row)?.[1])).toEqual(["supported", "supported", "supported", "unsupported"]);
    expect(rows[3]).toContain("Every kettle boils a litre within 45 seconds.");
    expect(rows[3]).toContain("numbers not in the source: 45");
    expect(rows[3]).toContain('<a href="#source-1"');
  });

  it("shows the transcript, the report message linking back to the artifact", () => {
    const transcript = /<section id="transcript">([\s\S]*)<\/section>/.exec(html)?.[1] ?? "";
    expect(transcript).toContain(`Research kettle efficiency ${ESCAPED_HOSTILE}`);
    expect(transcript).toContain('id="report-message"');
    expect(transcript).toContain('<a href="#report">the report artifact</a>');
    expect(transcript).toContain("Tool: subagent");
  });
});

describe("renderSessionExport (normal session)", () => {
  it("has no research sections and still escapes everything", () => {
    const entries = toEntries([userEntry("hi <b>there</b>"), assistantEntry("Hello **you** <i>x</i> ![p](https://x.example/p.png)")]);
    const input = exportInputOf("plain-session", entries, "A <name>");
    expect(input.research).toBeNull();
    const html = renderSessionExport(input);
    expect(html).not.toContain('id="research"');
    expect(html).not.toContain('id="sources"');
    expect(html).toContain("<title>A &lt;name&gt;</title>");
    expect(html).toContain("hi &lt;b&gt;there&lt;/b&gt;");
    expect(html).toContain("Hello <strong>you</strong> &lt;i&gt;x&lt;/i&gt;");
    expect(externalReferences(html)).toEqual([]);
    expect(foreignMarkup(html)).toEqual([]);
    expect(danglingAnchors(html)).toEqual([]);
  });
});

describe("export helpers", () => {
  it("the structural checks catch what they look for", () => {
    expect(externalReferences('<p><img class="x" src="http://x/y.png"></p>')).toHaveLength(1);
    expect(externalReferences('<img src="data:image/png;base64,AA==">')).toEqual([]);
    expect(externalReferences('<style>@import "x"; a { background: url(http://x) }</style><link rel="x"><p>@import url(</p>')).toHaveLength(
      3,
    );
    expect(foreignMarkup('<p class="a">ok</p><zq>')).toEqual(["<zq>"]);
    expect(foreignMarkup('<p onclick="x">ok</p>')).toHaveLength(1);
    expect(danglingAnchors('<a href="#a">x</a><p id="b"></p>')).toEqual(["a"]);
  });

  it("titles an export by name, report title, first message, then id", () => {
    const input = researchExportInput();
    expect(exportTitle(input)).toBe(input.research?.reportTitle);
    expect(exportTitle({ ...input, session: { ...input.session, name: "Named" } })).toBe("Named");
    expect(exportTitle({ session: { ...input.session, firstMessage: "(no messages)" }, research: null })).toBe(
      `Session ${RESEARCH_SESSION_ID}`,
    );
  });

  it("summarises a source by exclusion reason, else evidence, else claim", () => {
    const base = researchExportInput().research?.sources[0];
    if (!base) throw new Error("fixture has sources");
    expect(sourceEvidenceSummary({ ...base, status: "excluded", exclusionReason: "bad" })).toEqual({ label: "Excluded", text: "bad" });
    expect(sourceEvidenceSummary({ ...base, status: "cited", evidence: "e", claim: "c" })).toEqual({ label: "Evidence", text: "e" });
    expect(sourceEvidenceSummary({ ...base, status: "candidate", evidence: "", claim: "c" })).toEqual({ label: "Claim", text: "c" });
    expect(sourceEvidenceSummary({ ...base, status: "candidate", evidence: "", claim: "" })).toBeNull();
  });
});

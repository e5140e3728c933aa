import { describe, expect, it } from "vitest";
import { researchReportDetails } from "../../../../domain/transcript/research-transcript.ts";
import {
  childSessionHref,
  citationCheck,
  citedSources,
  comparableText,
  findReportEntry,
  groupSources,
  phaseIndex,
  phaseSteps,
  readResearchReport,
  sourceFacts,
  sourceLocation,
  sourceTitle,
  supportForCitation,
  threadSources,
  verdictCounts,
  weakestVerdict,
  type SentenceSupport,
} from "./research-view.ts";
import {
  completedResearch,
  gatheringResearch,
  REPORT_ENTRY_ID,
  REPORT_MARKDOWN,
  RESEARCH_REPORT,
  researchEntries,
} from "./research.fixture.ts";

describe("phase bar steps", () => {
  it("orders the phases Plan, Gather, Synthesize, Report", () => {
    expect(["plan", "gather", "synthesize", "report"].map(phaseIndex)).toEqual([0, 1, 2, 3]);
    expect(phaseIndex("review")).toBe(-1);
  });

  it("marks earlier phases done, the current one current while running and later ones upcoming", () => {
    expect(phaseSteps("gather", "running").map((s) => `${s.label}:${s.state}`)).toEqual([
      "Plan:done",
      "Gather:current",
      "Synthesize:upcoming",
      "Report:upcoming",
    ]);
  });

  it("marks the current phase failed on error and every phase done when complete", () => {
    expect(phaseSteps("synthesize", "error").map((s) => s.state)).toEqual(["done", "done", "failed", "upcoming"]);
    expect(phaseSteps("report", "complete").map((s) => s.state)).toEqual(["done", "done", "done", "done"]);
  });
});

describe("sources", () => {
  it("groups the ledger of a completed run by status, in id order", () => {
    const groups = groupSources(completedResearch().sources);
    expect(groups.cited.map((s) => s.id)).toEqual([1, 2, 3]);
    expect(groups.candidate.map((s) => s.id)).toEqual([5]);
    expect(groups.excluded.map((s) => s.id)).toEqual([4]);
    expect(groups.excluded[0]?.exclusionReason).toBe("Unsourced blog claim contradicted by association data");
  });

  it("lists cited sources in the report's citation order", () => {
    const research = completedResearch();
    expect(citedSources({ ...research, citedSourceIds: [3, 1, 2] }).map((s) => s.id)).toEqual([3, 1, 2]);
    expect(citedSources(gatheringResearch())).toEqual([]);
  });

  it("shows a URL as a link and a path as text", () => {
    expect(sourceLocation({ url: "https://www.iea.org/x", path: "" })).toEqual({
      text: "https://www.iea.org/x",
      href: "https://www.iea.org/x",
    });
    expect(sourceLocation({ url: "", path: "./notes/a.md" })).toEqual({ text: "./notes/a.md", href: null });
    expect(sourceLocation({ url: "javascript:alert(1)", path: "" }).href).toBeNull();
  });

  it("falls back from the title to the URL's host and path, the path, then the number", () => {
    expect(sourceTitle({ id: 1, title: "T", url: "https://a.org/b", path: "" })).toBe("T");
    expect(sourceTitle({ id: 1, title: " ", url: "https://a.org/b/c", path: "" })).toBe("a.org/b/c");
    expect(sourceTitle({ id: 1, title: "", url: "https://a.org/", path: "" })).toBe("a.org");
    expect(sourceTitle({ id: 2, title: "", url: "", path: "src/x.ts" })).toBe("src/x.ts");
    expect(sourceTitle({ id: 3, title: "", url: "", path: "" })).toBe("Source 3");
    expect(sourceFacts({ publisher: "IEA", publishedAt: "", kind: "report" })).toBe("IEA · report");
  });
});

describe("threads", () => {
  it("collects a thread's sources from its source ids and from the sources that name it", () => {
    const research = completedResearch();
    const t1 = research.threads.find((t) => t.id === "t1");
    const t3 = research.threads.find((t) => t.id === "t3");
    expect(t1 && threadSources(t1, research.sources).map((s) => s.id)).toEqual([1, 4]);
    expect(t3 && threadSources(t3, research.sources).map((s) => s.id)).toEqual([3]);
  });

  it("links a thread to its child session page only once it has one", () => {
    const research = gatheringResearch();
    const [t1, , t3] = research.threads;
    expect(t1 && childSessionHref(t1)).toBe("/sessions/0199a7e2-5000-7000-8000-000000000001");
    expect(t3 && childSessionHref(t3)).toBeNull();
  });
});

describe("report entry and support verdicts", () => {
  it("finds the report message by the research's reportEntryId", () => {
    const entries = researchEntries();
    expect(findReportEntry(entries, REPORT_ENTRY_ID)?.id).toBe(REPORT_ENTRY_ID);
    expect(findReportEntry(entries, "")).toBeNull();
    expect(findReportEntry(entries, "missing")).toBeNull();
  });

  it("reads researchReport and tolerates its absence or malformed parts", () => {
    const [, report] = researchEntries();
    const read = readResearchReport(report);
    expect(read?.title).toBe(RESEARCH_REPORT.title);
    expect(read?.support.map((s) => s.verdict)).toEqual(["supported", "partial", "supported", "unsupported"]);
    expect(readResearchReport(researchEntries(false)[1])).toBeNull();
    expect(readResearchReport({ researchReport: "x" })).toBeNull();
    const partial = readResearchReport({
      researchReport: {
        support: [{ sentence: "A.", sourceId: 1, verdict: "maybe" }, { sentence: "B.", sourceId: 2, verdict: "partial" }, null],
      },
    });
    expect(partial).toEqual({
      title: "",
      citedSourceIds: [],
      citations: [],
      support: [{ sentence: "B.", sourceId: 2, verdict: "partial", score: 0, matchedTerms: [], missingNumbers: [] }],
    });
  });

  it("compares Markdown sentences with rendered text", () => {
    expect(comparableText("Sales grew by **38%** in 2022 [1](https://x.org/a).")).toBe("sales grew by 38 in 2022 1");
    expect(comparableText("Sales grew [[2]](https://x.org/a).")).toBe("sales grew");
  });

  it("picks the verdict of the sentence around a clicked citation when a source is cited twice", () => {
    const support = readResearchReport(researchEntries()[1])?.support ?? [];
    const first = supportForCitation(support, 1, "Heat pump sales in Europe grew by 38% in 2022 1. Global growth had already doubled 2.");
    expect(first.map((s) => s.verdict)).toEqual(["supported"]);
    const second = supportForCitation(support, 1, "The slowdown in 2023 was driven by cheaper gas 1");
    expect(second.map((s) => s.verdict)).toEqual(["unsupported"]);
    expect(supportForCitation(support, 1, "unrelated text").length).toBe(2);
    expect(supportForCitation(support, 9, "anything")).toEqual([]);
  });

  it("counts verdicts and finds the weakest", () => {
    const support = (readResearchReport(researchEntries()[1])?.support ?? []) as SentenceSupport[];
    expect(verdictCounts(support)).toEqual({ supported: 2, partial: 1, unsupported: 1, "no-evidence": 0 });
    expect(weakestVerdict(support)).toBe("unsupported");
    expect(weakestVerdict([{ verdict: "supported" }, { verdict: "no-evidence" }, { verdict: "partial" }])).toBe("no-evidence");
    expect(weakestVerdict([])).toBeNull();
  });
});

describe("the backend's researchReport", () => {
  it("reads what the backend attaches to a report entry (domain/transcript/research-transcript.ts)", () => {
    const details = researchReportDetails(REPORT_MARKDOWN, completedResearch());
    const read = readResearchReport({ researchReport: details });
    expect(read).toEqual({
      title: details.title,
      citedSourceIds: details.citedSourceIds,
      citations: details.citations,
      support: details.support,
    });
    expect(read?.support.map((s) => s.sourceId)).toEqual([1, 2, 3, 1]);
  });

  it("finds the backend's check of a clicked citation by its position among the report's citations", () => {
    const research = completedResearch();
    const markdown = `${REPORT_MARKDOWN}\n\nA blog said sales tripled [4](https://example.com/blog/heat-pumps-boom).`;
    const { citations } = researchReportDetails(markdown, research);
    expect(citations.map((c) => `${c.number}:${c.valid}`)).toEqual(["1:true", "2:true", "3:true", "1:true", "4:false"]);
    expect(citationCheck(citations, 4, 4)).toMatchObject({ valid: false, reason: "cites excluded source 4" });
    expect(citationCheck(citations, 1, 3)).toBe(citations[3]);
    expect(citationCheck(citations, 4, 0)).toBe(citations[4]);
    expect(citationCheck(citations, 9, 0)).toBeNull();
  });

  it("matches the backend's reader-facing sentences to the rendered block of each citation", () => {
    const support = readResearchReport({ researchReport: researchReportDetails(REPORT_MARKDOWN, completedResearch()) })?.support ?? [];
    const rendered = "The slowdown in 2023 was driven by cheaper gas 1.";
    const found = supportForCitation(support, 1, rendered);
    expect(found).toHaveLength(1);
    expect(found[0]?.sentence).toContain("cheaper gas");
  });
});

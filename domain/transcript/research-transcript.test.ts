import { describe, expect, it } from "vitest";
import { researchStateFromEntries } from "../research/research.fold.ts";
import type { ResearchState } from "../research/research-types.ts";
import { CHILD_SESSION_PATH, REPORT_ENTRY_ID, researchSessionRecords } from "../../test/support/research-session.ts";
import { researcherTasks, resultThreadIds, taskThreadId, withResearchAnnotations } from "./research-transcript.ts";
import { transcriptOfPath } from "./transcript-builder.ts";
import type { ToolTranscriptEntry, TranscriptEntry } from "./transcript-types.ts";

function fixture(): { entries: TranscriptEntry[]; research: ResearchState } {
  const [header, ...branch] = researchSessionRecords();
  const research = researchStateFromEntries(header.id, branch);
  if (research === null) throw new Error("the fixture is a research session");
  return { entries: transcriptOfPath(branch), research };
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

function tool(args: Record<string, unknown>, resultText = ""): ToolTranscriptEntry {
  return {
    id: "a:c",
    timestamp: "",
    rolloutFeedback: "",
    rolloutFeedbackText: "",
    type: "tool",
    toolCallId: "c",
    name: "subagent",
    arguments: args,
    status: "done",
    resultText,
    resultImages: [],
    details: null,
    isError: false,
    callEntryId: "a",
    resultEntryId: "r",
    copyText: resultText,
  };
}

describe("withResearchAnnotations", () => {
  it("marks the report message with its title, cited sources and checked citations", () => {
    const { entries, research } = fixture();
    const annotated = withResearchAnnotations(deepFreeze(entries), research);
    const report = annotated.find((entry) => entry.id === REPORT_ENTRY_ID);
    expect(report?.type === "message" && report.role === "assistant" ? report.researchReport : undefined).toMatchObject({
      title: research.reportTitle,
      citedSourceIds: [1, 2],
      citations: [
        { number: 1, target: "https://example.com/kettle", sourceId: 1, valid: true, reason: "" },
        { number: 2, target: "docs/notes.md", sourceId: 2, valid: true, reason: "" },
        { number: 3, target: "https://paywall.example/x", sourceId: 3, valid: false, reason: "cites excluded source 3" },
        { number: 1, target: "https://example.com/kettle", sourceId: 1, valid: true, reason: "" },
      ],
    });
    // support verdicts of the cited sentences (domain/research/citation-support.ts)
    const support = report?.type === "message" && report.role === "assistant" ? report.researchReport?.support : undefined;
    expect(support?.map((item) => [item.sourceId, item.verdict, item.missingNumbers])).toEqual([
      [1, "supported", []],
      [2, "supported", []],
      [3, "supported", []],
      [1, "unsupported", ["45"]],
    ]);
    expect(support?.[3]?.sentence).toBe("Every kettle boils a litre within 45 seconds.");
    // every other message is untouched (the same object)
    const others = annotated.filter((entry) => entry.id !== REPORT_ENTRY_ID && entry.type === "message");
    for (const entry of others) expect(entries).toContain(entry);
    expect(others.some((entry) => "researchReport" in entry)).toBe(false);
  });

  it("marks the researcher subagent call with its threads from the state", () => {
    const { entries, research } = fixture();
    const annotated = withResearchAnnotations(entries, research);
    const call = annotated.find((entry): entry is ToolTranscriptEntry => entry.type === "tool" && entry.name === "subagent");
    expect(call?.researchThreads).toEqual([
      {
        threadId: "T1",
        title: research.threads[0]?.title,
        status: "done",
        summary: research.threads[0]?.summary,
        sourceIds: [1, 3],
        childSession: { id: "child-1", path: CHILD_SESSION_PATH, cwd: "/work/project" },
        error: "",
      },
      {
        threadId: "T2",
        title: "Stovetop kettles",
        status: "error",
        summary: "",
        sourceIds: [2],
        childSession: null,
        error: "worker failed",
      },
    ]);
  });

  it("returns the transcript as it is without research state", () => {
    const { entries } = fixture();
    expect(withResearchAnnotations(entries, null)).toBe(entries);
  });

  it("finds threads by task prefix (any case), by task text and by research_result blocks; ignores other agents", () => {
    const { research } = fixture();
    const ids = (entry: ToolTranscriptEntry): string[] | undefined => {
      const [annotated] = withResearchAnnotations([entry], research);
      return annotated?.type === "tool" ? annotated.researchThreads?.map((thread) => thread.threadId) : undefined;
    };
    expect(ids(tool({ agent: "researcher", task: "t2: stovetop" }))).toEqual(["T2"]);
    expect(ids(tool({ chain: [{ agent: "researcher", task: "electric kettle efficiency" }] }))).toEqual(["T1"]);
    expect(
      ids(tool({ tasks: [{ agent: "researcher", task: "no id here" }] }, '<research_result>{"threadId":"T2"}</research_result>')),
    ).toEqual(["T2"]);
    expect(ids(tool({ tasks: [{ agent: "researcher", task: "T9: unknown" }] }))).toEqual([]);
    expect(ids(tool({ agent: "scout", task: "T1: recon" }))).toBeUndefined();
  });
});

describe("researcher task helpers", () => {
  it("reads tasks of every subagent mode and the thread id prefix", () => {
    expect(
      researcherTasks({
        agent: "researcher",
        task: "a",
        tasks: [
          { agent: "researcher", task: "b" },
          { agent: "x", task: "c" },
        ],
        chain: [{ agent: "researcher", task: "d" }],
      }),
    ).toEqual(["a", "b", "d"]);
    expect(taskThreadId("  t1 : find")).toBe("t1");
    expect(taskThreadId("find: it")).toBe("find");
    expect(taskThreadId("no prefix here")).toBeNull();
    expect(
      resultThreadIds('x <research_result>{"threadId": " T1 "}</research_result> <research_result>not json</research_result>'),
    ).toEqual(["T1"]);
  });
});

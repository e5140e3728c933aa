/**
 * Realistic research fixtures for the research view tests: states folded by the real research fold
 * (domain/research/research.fold.ts) from the events a research run writes, and the report message entry
 * with a `researchReport` as the backend attaches it.
 */
import { applyResearchEvent } from "../../../../domain/research/research.fold.ts";
import type { ResearchEvent, ResearchState } from "../../../../domain/research/research-types.ts";
import type {
  AssistantMessageTranscriptEntry,
  ResearchReportDetails,
  TranscriptEntry,
  UserMessageTranscriptEntry,
} from "../../../../domain/transcript/transcript-types.ts";

export const RESEARCH_SESSION_ID = "0199a7e2-4c1d-7f00-9a51-3c2e8d7b1a10";
export const REPORT_ENTRY_ID = "a7c3e9f1";
const T0 = Date.parse("2026-11-30T14:00:00.000Z");

type EventBody = ResearchEvent extends infer E ? (E extends ResearchEvent ? Omit<E, "sessionId"> : never) : never;

function fold(events: readonly EventBody[], sessionId = RESEARCH_SESSION_ID): ResearchState {
  let state: ResearchState | null = null;
  events.forEach((body, index) => {
    const event = { ...body, sessionId } as ResearchEvent;
    state = applyResearchEvent(state, event, { entryId: `ev${index.toString().padStart(2, "0")}`, timestampMs: T0 + index * 1000 });
  });
  if (state === null) throw new Error("fixture events did not start a research state");
  return state;
}

const PLAN: EventBody[] = [
  { kind: "session" },
  { kind: "objective", objective: "How fast did home heat pump sales grow in Europe in 2022 and 2023?" },
  {
    kind: "plan",
    strategy: "Compare industry association figures with agency reports; check the 2023 slowdown separately.",
    threads: [
      { id: "t1", title: "Industry sales data", task: "Collect EHPA sales figures for 2022 and 2023." },
      { id: "t2", title: "Agency analysis", task: "Find IEA analysis of heat pump growth in Europe." },
      { id: "t3", title: "Market slowdown", task: "Explain the 2023 slowdown in heat pump sales." },
    ],
  },
  { kind: "phase", phase: "gather", note: "Three researchers started" },
];

const CHILD = (n: number) => ({
  id: `0199a7e2-5000-7000-8000-00000000000${n}`,
  path: `/home/user/.pi/agent/sessions/--work-demo--/2026-11-30T14-00-0${n}_child${n}.jsonl`,
  cwd: "/work/demo",
});

const GATHER: EventBody[] = [
  { kind: "thread", thread: { id: "t1", status: "running", childSession: CHILD(1), startedAt: T0 + 4000 } },
  { kind: "thread", thread: { id: "t2", status: "running", childSession: CHILD(2), startedAt: T0 + 4000 } },
  { kind: "thread", thread: { id: "t3", status: "queued" } },
  {
    kind: "source",
    source: {
      id: 1,
      url: "https://www.ehpa.org/market-data/2023-sales/",
      title: "European heat pump market and statistics report 2023",
      publisher: "EHPA",
      publishedAt: "2024-06-20",
      kind: "report",
      threadId: "t1",
      claim: "Heat pump sales in Europe grew by 38% in 2022.",
      evidence: "Sales rose 38% to about 3 million units in 2022, the strongest growth on record.",
    },
  },
  {
    kind: "source",
    source: {
      id: 2,
      url: "https://www.iea.org/reports/the-future-of-heat-pumps",
      title: "The Future of Heat Pumps",
      publisher: "IEA",
      publishedAt: "2022-11-30",
      kind: "report",
      threadId: "t2",
      claim: "Heat pumps are on track to become the main way of heating buildings.",
      evidence: "Global sales of heat pumps grew by close to 15% in 2021, double the average of the past decade.",
    },
  },
  {
    kind: "source",
    source: {
      id: 3,
      path: "./notes/interviews.md",
      title: "Installer interviews",
      kind: "notes",
      threadId: "t3",
      claim: "Installers reported a drop in orders in the second half of 2023.",
      evidence: "Four of five installers saw fewer orders from July 2023 as gas prices fell.",
    },
  },
  {
    kind: "source",
    source: {
      id: 4,
      url: "https://example.com/blog/heat-pumps-boom",
      title: "Heat pumps are booming",
      publisher: "Example Blog",
      threadId: "t1",
      claim: "Sales tripled in 2023.",
      evidence: "Our readers bought three times as many heat pumps.",
    },
  },
  {
    kind: "source",
    source: {
      id: 4,
      url: "https://example.com/blog/heat-pumps-boom",
      status: "excluded",
      exclusionReason: "Unsourced blog claim contradicted by association data",
    },
  },
  {
    kind: "source",
    source: {
      id: 5,
      url: "https://www.eea.europa.eu/heat-pumps-2023",
      title: "Heat pump deployment in the EU",
      publisher: "EEA",
      threadId: "t2",
      claim: "Deployment slowed in 2023.",
      evidence: "Sales fell in 2023 in several member states.",
    },
  },
  {
    kind: "thread",
    thread: { id: "t1", status: "done", summary: "EHPA: +38% in 2022, about -5% in 2023.", sourceIds: [1, 4], completedAt: T0 + 9000 },
  },
  {
    kind: "thread",
    thread: { id: "t2", status: "done", summary: "IEA frames 2022 as a record year.", sourceIds: [2, 5], completedAt: T0 + 9500 },
  },
  {
    kind: "thread",
    thread: { id: "t3", status: "error", childSession: CHILD(3), error: "Worker stopped: No scripted reply", sourceIds: [3] },
  },
];

const REPORT: EventBody[] = [
  { kind: "phase", phase: "synthesize", note: "Comparing figures" },
  { kind: "phase", phase: "report", title: "Heat pump sales in Europe, 2022–2023", citedSourceIds: [1, 2, 3] },
  { kind: "report", reportEntryId: REPORT_ENTRY_ID, title: "Heat pump sales in Europe, 2022–2023", citedSourceIds: [1, 2, 3] },
];

/** A research run in its gather phase: one thread running, one queued, sources registered, none cited. */
export function gatheringResearch(): ResearchState {
  return fold([...PLAN, ...GATHER.slice(0, 5)]);
}

/** A finished research run: report written and validated, three sources cited, one excluded. */
export function completedResearch(): ResearchState {
  return fold([...PLAN, ...GATHER, ...REPORT]);
}

/** A run that stopped with an error in the synthesize phase. */
export function failedResearch(): ResearchState {
  return fold([
    ...PLAN,
    ...GATHER,
    { kind: "phase", phase: "synthesize" },
    { kind: "error", message: "Citation [7](https://nowhere.example) names no ledger source 7" },
  ]);
}

export const REPORT_MARKDOWN = [
  "# Heat pump sales in Europe, 2022–2023",
  "",
  "Heat pump sales in Europe grew by 38% in 2022 [1](https://www.ehpa.org/market-data/2023-sales/).",
  "Global growth had already doubled its decade average in 2021 [2](https://www.iea.org/reports/the-future-of-heat-pumps).",
  "",
  "- Installers saw fewer orders from July 2023 [3](./notes/interviews.md).",
  "- The slowdown in 2023 was driven by cheaper gas [1](https://www.ehpa.org/market-data/2023-sales/).",
].join("\n");

const USAGE = {
  input: 1200,
  output: 420,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 1620,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
};

/** The researchReport the backend attaches to the report message entry (sentences as a reader sees them). */
export const RESEARCH_REPORT: ResearchReportDetails = {
  title: "Heat pump sales in Europe, 2022–2023",
  citedSourceIds: [1, 2, 3],
  citations: [],
  support: [
    {
      sentence: "Heat pump sales in Europe grew by 38% in 2022.",
      sourceId: 1,
      verdict: "supported",
      score: 0.92,
      matchedTerms: ["sales", "grew", "38%", "2022"],
      missingNumbers: [],
    },
    {
      sentence: "Global growth had already doubled its decade average in 2021.",
      sourceId: 2,
      verdict: "partial",
      score: 0.55,
      matchedTerms: ["2021", "decade", "average"],
      missingNumbers: [],
    },
    {
      sentence: "Installers saw fewer orders from July 2023.",
      sourceId: 3,
      verdict: "supported",
      score: 0.81,
      matchedTerms: ["orders", "July", "2023"],
      missingNumbers: [],
    },
    {
      sentence: "The slowdown in 2023 was driven by cheaper gas.",
      sourceId: 1,
      verdict: "unsupported",
      score: 0.12,
      matchedTerms: ["2023"],
      missingNumbers: [],
    },
  ],
};

/** The transcript of the completed run: the objective prompt and the report message (with researchReport). */
export function researchEntries(withReport = true): TranscriptEntry[] {
  const user: UserMessageTranscriptEntry = {
    id: "u1",
    type: "message",
    role: "user",
    timestamp: "2026-11-30T14:00:01.000Z",
    rolloutFeedback: "",
    rolloutFeedbackText: "",
    text: "How fast did home heat pump sales grow in Europe in 2022 and 2023?",
    blocks: [{ type: "text", text: "How fast did home heat pump sales grow in Europe in 2022 and 2023?" }],
    copyText: "How fast did home heat pump sales grow in Europe in 2022 and 2023?",
    messageTimestamp: T0 + 1000,
  };
  const report: AssistantMessageTranscriptEntry = {
    id: REPORT_ENTRY_ID,
    type: "message",
    role: "assistant",
    timestamp: "2026-11-30T14:00:20.000Z",
    rolloutFeedback: "",
    rolloutFeedbackText: "",
    text: REPORT_MARKDOWN,
    blocks: [{ type: "text", text: REPORT_MARKDOWN }],
    copyText: REPORT_MARKDOWN,
    messageTimestamp: T0 + 20_000,
    provider: "faux",
    model: "faux-1",
    stopReason: "stop",
    usage: USAGE,
  };
  if (withReport) report.researchReport = RESEARCH_REPORT;
  return [user, report];
}

/**
 * A hand-written research session (pi version-3 JSONL) for export, transcript and API tests: a marker,
 * an objective, a plan with two threads run by one parallel `subagent` call of reserved researchers, three
 * ledger sources (one excluded with a reason), a report checkpoint, the report message and its report
 * event. Session text carries hostile HTML (`HOSTILE`) in titles, claims, reasons and messages.
 */
import fs from "node:fs";
import path from "node:path";
import type { SessionEntry, SessionHeader } from "../../domain/session-log.ts";
import { researchEventEntryData } from "../../domain/research/research-event.ts";
import { RESEARCH_CUSTOM_TYPE, type ResearchEvent } from "../../domain/research/research-types.ts";

export const HOSTILE = `<script>alert("x")</script><img src="http://evil.example/x.png">`;

export const RESEARCH_SESSION_ID = "5f0c2a9e-1d2b-4c3d-8e4f-a1b2c3d4e5f6";
export const REPORT_ENTRY_ID = "e13";
export const CHILD_SESSION_PATH = "/agent/sessions/--work--/child-T1.jsonl";

export const REPORT_MARKDOWN = [
  "# Kettle efficiency",
  "",
  "Electric kettles convert about 80 percent of their energy into heat [1](https://example.com/kettle).",
  "",
  "Stovetop kettles lose heat around the pot, as the notes show [2](docs/notes.md).",
  "",
  "A paywalled page claims 99 percent efficiency [3](https://paywall.example/x).",
  "",
  "Every kettle boils a litre within 45 seconds [1](https://example.com/kettle).",
  "",
  `Hostile text ${HOSTILE} stays text.`,
].join("\n");

const BASE = Date.parse("2026-01-05T10:00:00.000Z");

function usage() {
  return {
    input: 10,
    output: 20,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: 30,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
  };
}

/** The header and entries of the research session (ids e1..e14, one linear branch). */
export function researchSessionRecords(sessionId = RESEARCH_SESSION_ID, cwd = "/work/project"): [SessionHeader, ...SessionEntry[]] {
  const research = (event: ResearchEvent): Record<string, unknown> => ({
    type: "custom",
    customType: RESEARCH_CUSTOM_TYPE,
    data: researchEventEntryData(event),
  });
  const assistant = (content: unknown[], stopReason: string) => ({
    type: "message",
    message: {
      role: "assistant",
      content,
      api: "openai-responses",
      provider: "faux",
      model: "faux-1",
      usage: usage(),
      stopReason,
      timestamp: BASE,
    },
  });
  const bodies: Array<Record<string, unknown>> = [
    research({ kind: "session", sessionId }),
    research({ kind: "objective", sessionId, objective: `How efficient are kettles? ${HOSTILE}` }),
    { type: "message", message: { role: "user", content: `Research kettle efficiency ${HOSTILE}`, timestamp: BASE } },
    research({
      kind: "plan",
      sessionId,
      strategy: "Two independent threads",
      threads: [
        { id: "T1", title: `Electric kettles ${HOSTILE}`, task: "electric kettle efficiency" },
        { id: "T2", title: "Stovetop kettles", task: "stovetop kettle efficiency" },
      ],
    }),
    assistant(
      [
        { type: "text", text: "Running the researchers." },
        {
          type: "toolCall",
          id: "call-sub",
          name: "subagent",
          arguments: {
            tasks: [
              { agent: "researcher", task: "T1: electric kettle efficiency" },
              { agent: "researcher", task: "T2: stovetop kettle efficiency" },
            ],
          },
        },
      ],
      "toolUse",
    ),
    research({
      kind: "thread",
      sessionId,
      thread: {
        id: "T1",
        status: "done",
        summary: `Electric kettles are efficient. ${HOSTILE}`,
        sourceIds: [1, 3],
        childSession: { id: "child-1", path: CHILD_SESSION_PATH, cwd },
        startedAt: BASE + 5_000,
        completedAt: BASE + 9_000,
      },
    }),
    research({
      kind: "source",
      sessionId,
      source: {
        id: 1,
        url: "https://example.com/kettle",
        title: `Kettle study ${HOSTILE}`,
        publisher: "Example Lab",
        kind: "paper",
        threadId: "T1",
        claim: "Electric kettles are efficient.",
        evidence: "Electric kettles convert 80 percent of their energy into heat.",
      },
    }),
    research({
      kind: "source",
      sessionId,
      source: {
        id: 2,
        path: "docs/notes.md",
        title: "Notes",
        threadId: "T2",
        claim: "Stovetop kettles lose heat around the pot.",
      },
    }),
    research({
      kind: "source",
      sessionId,
      source: {
        id: 3,
        url: "https://paywall.example/x",
        title: "Paywalled page",
        threadId: "T1",
        status: "excluded",
        claim: "Kettles are 99 percent efficient.",
        evidence: "EVIDENCE-OF-EXCLUDED-SOURCE",
        exclusionReason: `Paywalled and unverifiable ${HOSTILE}`,
      },
    }),
    {
      type: "message",
      message: {
        role: "toolResult",
        toolCallId: "call-sub",
        toolName: "subagent",
        content: [
          {
            type: "text",
            text: `T1 done.\n<research_result>{"threadId": "T1", "title": "Electric", "summary": "ok", "sources": []}</research_result>`,
          },
        ],
        isError: false,
        timestamp: BASE,
      },
    },
    research({ kind: "thread", sessionId, thread: { id: "T2", status: "error", error: "worker failed", sourceIds: [2] } }),
    research({ kind: "phase", sessionId, phase: "report", title: `Kettle report ${HOSTILE}`, citedSourceIds: [1, 2] }),
    assistant([{ type: "text", text: REPORT_MARKDOWN }], "stop"),
    research({ kind: "report", sessionId, reportEntryId: REPORT_ENTRY_ID, title: `Kettle report ${HOSTILE}`, citedSourceIds: [1, 2] }),
  ];
  const entries = bodies.map((body, index) => ({
    ...body,
    id: `e${index + 1}`,
    parentId: index === 0 ? null : `e${index}`,
    timestamp: new Date(BASE + index * 1000).toISOString(),
  })) as unknown as SessionEntry[];
  const header = { type: "session", version: 3, id: sessionId, timestamp: new Date(BASE).toISOString(), cwd } as SessionHeader;
  return [header, ...entries];
}

/** Writes the research session as `<dir>/<name>` (JSONL) and returns the path. */
export function writeResearchSession(dir: string, name = "research.jsonl", sessionId = RESEARCH_SESSION_ID, cwd = "/work/project"): string {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, name);
  fs.writeFileSync(
    file,
    researchSessionRecords(sessionId, cwd)
      .map((record) => JSON.stringify(record))
      .join("\n") + "\n",
  );
  return file;
}

import { describe, expect, it } from "vitest";
import type { LogRecord, SessionEntry, SessionHeader } from "../domain/session-log.ts";
import { SUBAGENT_CUSTOM_TYPE } from "../domain/session-summary.ts";
import { RESEARCH_CUSTOM_TYPE } from "../domain/research/research-types.ts";
import { fold, rebuild } from "./projection.ts";
import { selectSessionSummary, sessionSummaryProjection } from "./session-summary.projection.ts";

const SESSION_ID = "0199aaaa-0000-7000-8000-000000000001";
const header: SessionHeader = {
  type: "session",
  version: 3,
  id: SESSION_ID,
  timestamp: "2026-01-02T03:04:05.000Z",
  cwd: "/work/project",
};

let line = 1;
const headerRecord = (h: SessionHeader = header): LogRecord => ({ kind: "header", line: 1, header: h });
const entryRecord = (entry: SessionEntry): LogRecord => ({ kind: "entry", line: ++line, entry });

function entry(id: string, parentId: string | null, fields: Record<string, unknown>): SessionEntry {
  return { id, parentId, timestamp: "2026-01-02T03:05:00.000Z", ...fields } as unknown as SessionEntry;
}
const user = (id: string, parentId: string | null, text: string, ts = 1_767_323_100_000) =>
  entry(id, parentId, { type: "message", message: { role: "user", content: [{ type: "text", text }], timestamp: ts } });
const assistant = (id: string, parentId: string | null, text: string, ts: number) =>
  entry(id, parentId, {
    type: "message",
    message: { role: "assistant", content: [{ type: "text", text }], provider: "faux", model: "faux-1", timestamp: ts },
  });
const research = (id: string, parentId: string | null, data: Record<string, unknown>) =>
  entry(id, parentId, { type: "custom", customType: RESEARCH_CUSTOM_TYPE, data: { version: 1, sessionId: SESSION_ID, ...data } });

const FILE = { path: "/agent/sessions/--work-project--/s.jsonl", mtimeMs: 1_800_000_000_000 };
const summarize = (records: LogRecord[]) => selectSessionSummary(rebuild(sessionSummaryProjection, records), FILE);

describe("session summary projection", () => {
  it("is null for a file without a session header", () => {
    expect(summarize([{ kind: "malformed", line: 1, reason: "not JSON" }])).toBeNull();
  });

  it("reports an empty session with its creation time and no messages", () => {
    expect(summarize([headerRecord()])).toEqual({
      id: SESSION_ID,
      path: FILE.path,
      cwd: "/work/project",
      isSubagentSession: false,
      research: null,
      firstMessage: "(no messages)",
      messageCount: 0,
      modified: "2026-01-02T03:04:05.000Z",
      timestamp: "2026-01-02T03:04:05.000Z",
    });
  });

  it("falls back to the file mtime when neither messages nor header carry a time", () => {
    const summary = summarize([headerRecord({ ...header, timestamp: "not a time" })]);
    expect(summary?.modified).toBe(new Date(FILE.mtimeMs).toISOString());
    expect(summary?.timestamp).toBeUndefined();
  });

  it("counts every message record, takes the first user text and the latest activity", () => {
    const summary = summarize([
      headerRecord(),
      entryRecord(entry("m0", null, { type: "model_change", provider: "faux", modelId: "faux-1" })),
      entryRecord(user("u1", "m0", "", 1_000)),
      entryRecord(user("u2", "u1", "first real question", 2_000)),
      entryRecord(assistant("a1", "u2", "answer", 5_000)),
      entryRecord(
        entry("t1", "a1", {
          type: "message",
          message: { role: "toolResult", toolCallId: "c", toolName: "read", content: [], isError: false, timestamp: 9_000 },
        }),
      ),
      entryRecord(user("u3", "t1", "second question", 4_000)),
    ]);
    expect(summary?.messageCount).toBe(5);
    expect(summary?.firstMessage).toBe("first real question");
    expect(summary?.modified).toBe(new Date(5_000).toISOString());
  });

  it("limits the first message to 140 characters", () => {
    const long = "x".repeat(139) + "😀tail";
    const summary = summarize([headerRecord(), entryRecord(user("u1", null, long))]);
    expect(summary?.firstMessage).toBe("x".repeat(139));
    expect(summary?.firstMessage.length).toBeLessThanOrEqual(140);
  });

  it("takes the latest session name and lets a blank name clear it", () => {
    const named = [
      headerRecord(),
      entryRecord(entry("n1", null, { type: "session_info", name: "  First  " })),
      entryRecord(entry("n2", "n1", { type: "session_info", name: "Second" })),
    ];
    expect(summarize(named)?.name).toBe("Second");
    const cleared = [...named, entryRecord(entry("n3", "n2", { type: "session_info", name: "   " }))];
    expect(summarize(cleared)).not.toHaveProperty("name");
  });

  it("links forks to their parent file and marks subagent sessions", () => {
    const summary = summarize([
      headerRecord({ ...header, parentSession: "/agent/sessions/p.jsonl" }),
      entryRecord(entry("s1", null, { type: "custom", customType: SUBAGENT_CUSTOM_TYPE, data: { version: 1 } })),
    ]);
    expect(summary?.parentSessionPath).toBe("/agent/sessions/p.jsonl");
    expect(summary?.isSubagentSession).toBe(true);
  });

  it("counts malformed lines and ignores unknown entry types", () => {
    const base = [headerRecord(), entryRecord(user("u1", null, "hello"))];
    const noisy = [
      ...base,
      { kind: "malformed", line: 9, reason: "bad JSON" } as LogRecord,
      entryRecord(entry("x1", "u1", { type: "future_entry_type", payload: 1 })),
    ];
    const state = rebuild(sessionSummaryProjection, noisy);
    expect(state.malformedLines).toBe(1);
    expect(selectSessionSummary(state, FILE)).toEqual(summarize(base));
  });

  describe("research on the active branch", () => {
    const marker = research("r0", null, { kind: "session" });
    const objective = research("r1", "r0", { kind: "objective", objective: "How do tides work?" });
    const plan = research("r2", "r1", {
      kind: "plan",
      strategy: "split",
      threads: [
        { id: "t1", title: "Moon", task: "moon" },
        { id: "t2", title: "Sun", task: "sun" },
      ],
    });

    it("uses the research objective as first message when there is no user message", () => {
      const summary = summarize([headerRecord(), entryRecord(marker), entryRecord(objective), entryRecord(plan)]);
      expect(summary?.firstMessage).toBe("How do tides work?");
      expect(summary?.research).toMatchObject({ sessionId: SESSION_ID, status: "running", threadCount: 2 });
    });

    it("ignores research events bound to another session id", () => {
      const foreign = entry("f0", null, {
        type: "custom",
        customType: RESEARCH_CUSTOM_TYPE,
        data: { version: 1, sessionId: "another", kind: "session" },
      });
      expect(summarize([headerRecord(), entryRecord(foreign)])?.research).toBeNull();
    });

    it("follows the active branch when the leaf moves to another branch", () => {
      const records = [headerRecord(), entryRecord(marker), entryRecord(objective), entryRecord(plan)];
      // A new entry whose parent is the objective: the plan is no longer on the active branch.
      const sibling = entryRecord(user("u9", "r1", "different direction"));
      const state = rebuild(sessionSummaryProjection, [...records, sibling]);
      expect(state.research?.threadCount).toBe(0);
      expect(state.research?.objective).toBe("How do tides work?");
      // And back onto the plan's branch.
      const back = rebuild(sessionSummaryProjection, [...records, sibling, entryRecord(user("u10", "r2", "go on"))]);
      expect(back.research?.threadCount).toBe(2);
      // A branch from before the marker has no research at all.
      const before = rebuild(sessionSummaryProjection, [
        headerRecord(),
        entryRecord(user("u0", null, "hi")),
        entryRecord(research("r5", "u0", { kind: "session" })),
        entryRecord(user("u11", "u0", "other")),
      ]);
      expect(before.research).toBeNull();
    });

    it("folds incrementally to the same state as a rebuild at every split", () => {
      const records = [
        headerRecord(),
        entryRecord(marker),
        entryRecord(objective),
        entryRecord(plan),
        entryRecord(user("u9", "r1", "branch")),
        entryRecord(research("r3", "r2", { kind: "phase", phase: "gather" })),
      ];
      const whole = rebuild(sessionSummaryProjection, records);
      for (let cut = 0; cut <= records.length; cut++) {
        const first = fold(sessionSummaryProjection, sessionSummaryProjection.initial(), records.slice(0, cut));
        expect(fold(sessionSummaryProjection, first, records.slice(cut))).toEqual(whole);
      }
    });
  });
});

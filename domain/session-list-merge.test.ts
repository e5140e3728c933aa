import { describe, expect, it } from "vitest";
import { sessionList, type ListedRuntime } from "./session-list-merge.ts";
import type { SessionSummary } from "./session-summary.ts";

function summary(id: string, path: string): SessionSummary {
  return { id, path, cwd: "/w", isSubagentSession: false, research: null, firstMessage: id, messageCount: 0 };
}

function runtime(sessionId: string, sessionFile: string | null): ListedRuntime & { asked: number } {
  const row = { sessionId, sessionFile, asked: 0, summary: () => (row.asked++, summary(sessionId, sessionFile ?? "")) };
  return row;
}

describe("sessionList", () => {
  it("puts runtime-only sessions first in roster order, then the persisted list as given", () => {
    const persisted = [summary("p2", "/s/p2.jsonl"), summary("p1", "/s/p1.jsonl")];
    const list = sessionList(persisted, [runtime("r1", null), runtime("r2", "/s/r2.jsonl")], (file) => file);
    expect(list.map((s) => s.id)).toEqual(["r1", "r2", "p2", "p1"]);
  });

  it("leaves out a runtime whose resolved file or whose id is listed, without asking for its row", () => {
    const persisted = [summary("p1", "/s/p1.jsonl"), summary("p2", "/s/p2.jsonl")];
    const byFile = runtime("other-id", "/s/./p1.jsonl");
    const byId = runtime("p2", null);
    const list = sessionList(persisted, [byFile, byId], (file) => file.replace("/./", "/"));
    expect(list.map((s) => s.id)).toEqual(["p1", "p2"]);
    expect([byFile.asked, byId.asked]).toEqual([0, 0]);
  });
});

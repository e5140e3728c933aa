import { describe, expect, it } from "vitest";
import type { SessionSummary } from "../../domain/session-summary.ts";
import { runtimeResearch, unsavedExport } from "./unsaved-export.ts";

const row: SessionSummary = {
  id: "s1",
  path: "",
  cwd: "/w",
  name: "Named",
  isSubagentSession: false,
  research: null,
  firstMessage: "hello",
  messageCount: 2,
  timestamp: "2026-01-01T00:00:00.000Z",
};

describe("unsavedExport", () => {
  it("is the runtime's list row and the research state of its snapshot, without entries", () => {
    const research = { sessionId: "s1", objective: "o" };
    const runtime = { sessionFile: null, summary: () => row, snapshot: () => ({ state: { research } }) };
    expect(unsavedExport(runtime)).toEqual({
      session: {
        id: "s1",
        name: "Named",
        cwd: "/w",
        sessionFile: "",
        firstMessage: "hello",
        messageCount: 2,
        created: "2026-01-01T00:00:00.000Z",
        modified: "",
      },
      research,
      entries: [],
    });
  });

  it("reads research only from a snapshot whose state.research has a session id", () => {
    const of = (snapshot: unknown) => runtimeResearch({ snapshot: () => snapshot });
    expect(of(null)).toBeNull();
    expect(of({ state: null })).toBeNull();
    expect(of({ state: { research: null } })).toBeNull();
    expect(of({ state: { research: { objective: "o" } } })).toBeNull();
    expect(of({ state: { research: [] } })).toBeNull();
  });
});

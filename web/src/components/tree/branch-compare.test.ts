import { describe, expect, it } from "vitest";
import type { ResearchSource, ResearchState } from "../../../../domain/research/research-types.ts";
import type { SessionEntry } from "../../../../domain/session-log.ts";
import { transcriptOfPath } from "../../../../domain/transcript/transcript-builder.ts";
import type { AssistantMessageTranscriptEntry } from "../../../../domain/transcript/transcript-types.ts";
import { assistantEntry, bashEntry, toolEntry, userEntry } from "../transcript/transcript.fixture.ts";
import { changedFile, compareBranches, entrySummary, sharedLength } from "./branch-compare.ts";
import { twoBranches } from "./tree.fixture.ts";

describe("compareBranches", () => {
  it("splits at the common ancestor and lists the files each branch changed, marking the ones both did", () => {
    const { a, b } = twoBranches();
    const compared = compareBranches(a, b);
    expect(compared.shared.map((e) => e.id)).toEqual(["u1", "a2"]);
    expect(compared.a.entries.map((e) => e.id)).toEqual(["u2", "a3:call-1", "a3:call-2", "a4"]);
    expect(compared.a.files).toEqual([{ path: "src/login.ts", tools: ["edit"], both: true }]);
    expect(compared.b.files).toEqual([
      { path: "src/login.ts", tools: ["edit"], both: true },
      { path: "src/password.ts", tools: ["write"], both: false },
    ]);
    expect(compared.nested).toBe(false);
  });

  it("tells nested branches, and a tool entry whose result differs is not shared", () => {
    const { a } = twoBranches();
    expect(compareBranches(a, a.slice(0, 3)).nested).toBe(true);
    const pending = [...a.slice(0, 3), { ...(a[3] as ReturnType<typeof toolEntry>), resultEntryId: null, status: "pending" as const }];
    expect(sharedLength(a, pending)).toBe(3);
  });

  it("counts only writes that did not fail, as the transcript tells file changes (tool-entry.ts), at the entry's file", () => {
    expect(changedFile(toolEntry("x", "1", { name: "read", file: "a.ts", diff: undefined }))).toBeNull();
    expect(changedFile(toolEntry("x", "1", { name: "edit", isError: true }))).toBeNull();
    expect(changedFile(toolEntry("x", "1", { name: "apply_patch", file: "b.ts" }))).toBe("b.ts");
    // Any tool the transcript takes for a file change (its name has edit, write or patch), as its tool rows do.
    expect(changedFile(toolEntry("x", "1", { name: "hashline_edit", file: "d.ts" }))).toBe("d.ts");
    expect(changedFile(toolEntry("x", "1", { name: "WriteFile", file: "e.ts" }))).toBe("e.ts");
    expect(changedFile(toolEntry("x", "1", { name: "edit", file: undefined }))).toBeNull();
    expect(changedFile(userEntry("u", "hi"))).toBeNull();
  });

  it("agrees with the transcript: the tool entries built from a session file name the files changed", () => {
    const at = "2026-05-01T10:00:00.000Z";
    const call = (id: string, name: string, args: Record<string, unknown>) => ({ type: "toolCall", id, name, arguments: args });
    const result = (id: string, toolCallId: string, parentId: string, isError = false) =>
      ({
        type: "message",
        id,
        parentId,
        timestamp: at,
        message: { role: "toolResult", toolCallId, content: [{ type: "text", text: "ok" }], isError, timestamp: 1 },
      }) as SessionEntry;
    const entries = transcriptOfPath([
      { type: "message", id: "u1", parentId: null, timestamp: at, message: { role: "user", content: "go", timestamp: 1 } } as SessionEntry,
      {
        type: "message",
        id: "a1",
        parentId: "u1",
        timestamp: at,
        message: {
          role: "assistant",
          content: [
            call("c1", "multi_edit", { file_path: "src/f.ts", edits: [] }),
            call("c2", "read", { path: "src/g.ts" }),
            call("c3", "write", { path: "src/h.ts", content: "" }),
          ],
          stopReason: "toolUse",
          timestamp: 1,
        },
      } as SessionEntry,
      result("r1", "c1", "a1"),
      result("r2", "c2", "r1"),
      result("r3", "c3", "r2", true),
    ]);
    expect(entries.map(changedFile).filter((file) => file !== null)).toEqual(["src/f.ts"]);
  });

  it("finds each branch's research report", () => {
    const report: AssistantMessageTranscriptEntry = {
      ...assistantEntry("r1", "# Report", null),
      researchReport: {
        title: "Sign-in options",
        citedSourceIds: [1, 2],
        citations: [
          { number: 1, target: "https://a", sourceId: 1, valid: true, reason: "" },
          { number: 2, target: "https://b", sourceId: null, valid: false, reason: "no such source" },
        ],
        support: [],
      },
    };
    const { a, b } = twoBranches();
    const compared = compareBranches([...a, report], b);
    expect(compared.a.report).toEqual({ title: "Sign-in options", citations: 2, validCitations: 1 });
    expect(compared.b.report).toBeNull();
  });

  it("lists each branch's source ledger, marking the sources the other branch does not have", () => {
    const { a, b } = twoBranches();
    const source = (id: number, url: string, status: "candidate" | "cited" | "excluded") =>
      ({ id, key: url, url, path: "", title: `Source ${id}`, status }) as unknown as ResearchSource;
    const ledgerA = { sources: [source(1, "https://a.test/one", "cited"), source(2, "https://a.test/two", "candidate")] } as ResearchState;
    const ledgerB = {
      sources: [source(1, "https://a.test/one", "candidate"), source(2, "https://b.test/other", "cited")],
    } as ResearchState;
    const compared = compareBranches(a, b, { a: ledgerA, b: ledgerB });
    expect(compared.a.ledger).toEqual({
      sources: [
        { id: 1, title: "Source 1", status: "cited", onlyHere: false },
        { id: 2, title: "Source 2", status: "candidate", onlyHere: true },
      ],
      cited: 1,
    });
    expect(compared.b.ledger?.sources.map((s) => [s.id, s.onlyHere])).toEqual([
      [1, false],
      [2, true],
    ]);
    expect(compareBranches(a, b).a.ledger).toBeNull();
    expect(compareBranches(a, b, { a: ledgerA, b: null }).a.ledger?.sources.every((s) => s.onlyHere)).toBe(true);
  });

  it("summarizes entries in one line", () => {
    expect(entrySummary(userEntry("u", "hi"))).toEqual({ who: "user", text: "hi" });
    expect(entrySummary(bashEntry("b", "ls", "out", 0))).toEqual({ who: "bash", text: "$ ls" });
    expect(
      entrySummary(
        toolEntry("x", "1", { name: "bash", arguments: { command: "npm test" }, file: undefined, diff: undefined, isError: true }),
      ),
    ).toEqual({
      who: "bash",
      text: "npm test (failed)",
    });
  });
});

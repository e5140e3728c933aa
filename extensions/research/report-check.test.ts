import { describe, expect, it } from "vitest";
import { assistantEntry, toEntries, userEntry } from "../../test/arbitraries/research.arbitrary.ts";
import { researchStateFromEntries } from "../../domain/research/research.fold.ts";
import type { ResearchEvent } from "../../domain/research/research-types.ts";
import type { SessionEntry } from "../../domain/session-log.ts";
import { finalReportEvent } from "./report-check.ts";

const S = "sess-a";

const gathered: ResearchEvent[] = [
  { kind: "session", sessionId: S },
  { kind: "source", sessionId: S, source: { url: "https://a.example/1", title: "A" } },
  { kind: "source", sessionId: S, source: { path: "./docs/b.md", title: "B" } },
  { kind: "source", sessionId: S, source: { url: "https://a.example/3", title: "C", status: "excluded", exclusionReason: "weak" } },
];
const checkpoint: ResearchEvent = { kind: "phase", sessionId: S, phase: "report", title: "Final", citedSourceIds: [1, 2] };

function check(events: ResearchEvent[], tail: SessionEntry[]) {
  const branch = toEntries([...events, ...tail]);
  return { branch, event: finalReportEvent(researchStateFromEntries(S, branch), branch) };
}

describe("finalReportEvent", () => {
  it("a valid report after the checkpoint → report event naming the message, title and cited ids", () => {
    const { branch, event } = check(
      [...gathered, checkpoint],
      [assistantEntry("# Final\n\n[2](docs/b.md) and [1](https://a.example/1/).")],
    );
    expect(event).toEqual({ kind: "report", sessionId: S, reportEntryId: branch.at(-1)?.id, title: "Final", citedSourceIds: [1, 2] });
  });

  it.each([
    ["an invalid number", "See [7](https://a.example/7).", "Citation [7](https://a.example/7) names no ledger source 7"],
    [
      "an excluded source",
      "See [1](https://a.example/1) and [3](https://a.example/3).",
      "Citation [3](https://a.example/3) cites excluded source 3",
    ],
    ["a target that does not match", "See [1](https://a.example/2).", "Citation [1](https://a.example/2) does not match source 1"],
    [
      "no citation although usable sources exist",
      "All is well.",
      "The report has no valid numeric citation of the 2 usable ledger sources",
    ],
  ])("%s → error event", (_label, text, message) => {
    const { event } = check([...gathered, checkpoint], [assistantEntry(text)]);
    expect(event?.kind).toBe("error");
    expect(event && event.kind === "error" ? event.message : "").toContain(message);
  });

  it("records nothing before the checkpoint, after completion, or when the run did not end with a final answer", () => {
    expect(check(gathered, [assistantEntry("[1](https://a.example/1)")]).event).toBeNull();
    const complete: ResearchEvent = { kind: "report", sessionId: S, reportEntryId: "x" };
    expect(check([...gathered, checkpoint, complete], [assistantEntry("no cites")]).event).toBeNull();
    expect(check([...gathered, checkpoint], [assistantEntry("partial [9](x)", "a", "aborted")]).event).toBeNull();
    expect(check([...gathered, checkpoint], [assistantEntry("calling a tool", "a", "toolUse")]).event).toBeNull();
    expect(check([...gathered, checkpoint], [assistantEntry("x"), userEntry("next question")]).event).toBeNull();
    // the checkpoint comes after the last message (nothing answered it yet)
    expect(check(gathered, [assistantEntry("[9](x)"), checkpoint as unknown as SessionEntry]).event).toBeNull();
  });

  it("outside a research session → null", () => {
    expect(finalReportEvent(null, toEntries([assistantEntry("hi")]))).toBeNull();
  });
});

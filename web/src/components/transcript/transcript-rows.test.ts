import { describe, expect, it } from "vitest";
import { everyEntryType, toolEntry, userEntry } from "./transcript.fixture.ts";
import {
  clipLines,
  copyTextOf,
  diffLines,
  entryActions,
  isThinkingOpen,
  nextStuck,
  reportTitleOf,
  sessionEntryIdOf,
  transcriptRows,
} from "./transcript-rows.ts";

describe("transcriptRows", () => {
  it("keeps visible entries in order, hides undisplayed custom messages and ends with the streaming message", () => {
    const rows = transcriptRows(everyEntryType(), { id: "m1", role: "assistant", text: "hi", thinking: "", toolCalls: [] });
    expect(rows.map((r) => r.key)).toEqual(["e:e0", "e:e1", "e:e2", "e:e3", "e:e4", "e:e4:call-1", "e:e5", "e:e6", "e:e7", "e:e8", "s:m1"]);
  });
});

describe("entry actions", () => {
  it("names the session entry of a tool entry by its result, else its call", () => {
    expect(sessionEntryIdOf(toolEntry("a1", "c1"))).toBe("a1-result");
    expect(sessionEntryIdOf(toolEntry("a1", "c1", { status: "pending", resultEntryId: null }))).toBe("a1");
    expect(sessionEntryIdOf(toolEntry("a1", "c1", { callEntryId: null, resultEntryId: null }))).toBeNull();
    expect(sessionEntryIdOf(userEntry("u1", "x"))).toBe("u1");
  });

  it("offers edit for user prompts only, and no reset or edit while busy", () => {
    const [system, , , user, assistant] = everyEntryType();
    expect(entryActions(user!, false)).toEqual({ copy: true, fork: true, reset: true, edit: true });
    expect(entryActions(assistant!, false).edit).toBe(false);
    expect(entryActions(user!, true)).toEqual({ copy: true, fork: true, reset: false, edit: false });
    expect(copyTextOf(system!)).toBe("Tools added: read");
  });

  it("offers only copy on a provisional prompt (pi has not written it: no entry to fork, reset or edit)", () => {
    const [, , , user] = everyEntryType();
    const provisional = { ...user!, id: "provisional:s1:1" };
    expect(entryActions(provisional, false)).toEqual({ copy: true, fork: false, reset: false, edit: false });
  });
});

describe("diffLines", () => {
  it("classifies unified and pi edit-tool diff lines", () => {
    expect(diffLines("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+new\n same\n").map((l) => l.kind)).toEqual([
      "meta",
      "meta",
      "hunk",
      "del",
      "add",
      "context",
    ]);
    expect(diffLines("- 12 \told line\n+ 12 \tnew line\n  13 \tkept\n     ...").map((l) => l.kind)).toEqual([
      "del",
      "add",
      "context",
      "context",
    ]);
  });
});

describe("thinking toggles", () => {
  it("uses the default until a block is toggled", () => {
    expect(isThinkingOpen({}, "e1#0", "collapsed")).toBe(false);
    expect(isThinkingOpen({}, "e1#0", "expanded")).toBe(true);
    expect(isThinkingOpen({ "e1#0": true }, "e1#0", "collapsed")).toBe(true);
    expect(isThinkingOpen({ "e1#0": false }, "e1#0", "expanded")).toBe(false);
  });
});

describe("nextStuck", () => {
  it("sticks near the end, unsticks when the user scrolls up, and keeps its state otherwise", () => {
    expect(nextStuck(false, { scrollTop: 950, previousScrollTop: 900, distanceFromEnd: 10 })).toBe(true);
    expect(nextStuck(true, { scrollTop: 500, previousScrollTop: 900, distanceFromEnd: 400 })).toBe(false);
    // Content grew below a stuck view: the offset did not go up, so it stays stuck (and is scrolled down).
    expect(nextStuck(true, { scrollTop: 900, previousScrollTop: 900, distanceFromEnd: 600 })).toBe(true);
    // Scrolling down but not yet at the end does not re-stick.
    expect(nextStuck(false, { scrollTop: 600, previousScrollTop: 500, distanceFromEnd: 300 })).toBe(false);
  });
});

describe("clipLines and reportTitleOf", () => {
  it("clips long text to whole lines", () => {
    expect(clipLines("a\nb\nc", 2)).toEqual({ text: "a\nb", lines: 3, clipped: true });
    expect(clipLines("a\nb", 2)).toEqual({ text: "a\nb", lines: 2, clipped: false });
  });

  it("recognizes the research report message", () => {
    const [, , , user, assistant] = everyEntryType();
    expect(reportTitleOf(assistant!, { reportEntryId: "e4", reportTitle: "Findings" })).toBe("Findings");
    expect(reportTitleOf(assistant!, { reportEntryId: "other", reportTitle: "Findings" })).toBeNull();
    expect(reportTitleOf(user!, { reportEntryId: "e3", reportTitle: "Findings" })).toBeNull();
    expect(
      reportTitleOf(
        { ...assistant!, researchReport: { title: "Annotated", citedSourceIds: [], citations: [], support: [] } } as never,
        null,
      ),
    ).toBe("Annotated");
  });
});

import { describe, expect, it } from "vitest";
import { assistantEntry, toolEntry, userEntry } from "../transcript/transcript.fixture.ts";
import { buildTreeIndex } from "./tree-layout.ts";
import { branchEnd, branchTip, transcriptRowIds, transcriptTargetFor } from "./tree-targets.ts";
import { branchedView, treeNode, treeViewOf } from "./tree.fixture.ts";

describe("tree targets", () => {
  const entries = [
    userEntry("u1", "Add a login page"),
    toolEntry("a1", "call-1", { resultEntryId: "t1" }),
    assistantEntry("a2", "Which sign-in method?", null),
    toolEntry("a3", "call-9", { resultEntryId: null, status: "pending" }),
  ];

  it("maps session entries to transcript rows: own rows, tool results and calls to their tool row", () => {
    const rows = transcriptRowIds(entries);
    expect(rows.get("u1")).toBe("u1");
    expect(rows.get("t1")).toBe("a1:call-1");
    expect(rows.get("a1")).toBe("a1:call-1");
    expect(rows.get("a3")).toBe("a3:call-9");
    expect(rows.has("a1:call-1")).toBe(false);
  });

  it("walks up to the nearest entry with a row", () => {
    const index = buildTreeIndex(branchedView("a2"));
    const rows = transcriptRowIds(entries);
    expect(transcriptTargetFor(index, rows, "t1")).toEqual({ entryId: "t1", rowId: "a1:call-1" });
    expect(transcriptTargetFor(index, rows, "u4")).toEqual({ entryId: "a2", rowId: "a2" });
    expect(transcriptTargetFor(index, new Map(), "u4")).toBeNull();
  });

  it("takes a branch to its tip: the active child where there is one, else the latest", () => {
    const index = buildTreeIndex(branchedView());
    expect(branchTip(index, "u1")).toBe("a6");
    expect(branchTip(index, "u2")).toBe("m1");
    expect(branchTip(index, "u5")).toBe("a7");
    expect(branchTip(index, "a7")).toBe("a7");
    expect(branchTip(buildTreeIndex(branchedView("a2")), "a2")).toBe("a7");
  });

  it("names a branch by its last entry that is not bookkeeping", () => {
    const index = buildTreeIndex(branchedView());
    // u2's branch ends in a model change: named by the answer before it.
    expect(branchEnd(index, "u2")).toEqual({ tipId: "m1", title: "assistant: Done with OAuth." });
    expect(branchEnd(index, "u5")).toEqual({ tipId: "a7", title: "assistant: Magic links need mail." });
    // Only bookkeeping: the tip itself names it.
    const bare = buildTreeIndex(treeViewOf([treeNode("l1", null, "label", ""), treeNode("m1", "l1", "model_change", "faux")], "m1"));
    expect(branchEnd(bare, "l1")).toEqual({ tipId: "m1", title: "label: (empty)" });
  });
});

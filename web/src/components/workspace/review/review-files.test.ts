import { describe, expect, it } from "vitest";
import { groupReviewFiles, splitPath } from "./review-files.ts";
import { reviewFile as file } from "./review.fixture.ts";

describe("groupReviewFiles", () => {
  it("puts conflicts first, a partly staged file in both Staged and Changes, and leaves out empty groups", () => {
    const groups = groupReviewFiles([
      file("a.ts"),
      file("b.ts", { staged: true, indexStatus: "M", worktreeStatus: "M" }),
      file("c.ts", { conflicted: true, kind: "conflicted", indexStatus: "U", worktreeStatus: "U" }),
      file("new.ts", { staged: false, unstaged: true, untracked: true, kind: "untracked", indexStatus: "?", worktreeStatus: "?" }),
      file("d.ts", { staged: true, unstaged: false, indexStatus: "D", worktreeStatus: " ", kind: "deleted" }),
    ]);
    expect(groups.map((group) => [group.id, group.rows.map((row) => `${row.letter} ${row.file.path} (${row.label})`)])).toEqual([
      ["conflicts", ["! c.ts (conflicted)"]],
      ["staged", ["M b.ts (modified)", "D d.ts (deleted)"]],
      ["changes", ["M a.ts (modified)", "M b.ts (modified)", "U new.ts (untracked)"]],
    ]);
    expect(groupReviewFiles([]).map((group) => group.id)).toEqual([]);
  });

  it("names a rename by its source, and falls back on the kind when the letter says nothing", () => {
    const [staged] = groupReviewFiles([
      file("new/name.ts", {
        staged: true,
        unstaged: false,
        indexStatus: "R",
        worktreeStatus: " ",
        kind: "renamed",
        oldPath: "old/name.ts",
      }),
      file("x.bin", { staged: true, unstaged: false, indexStatus: "", worktreeStatus: "", kind: "replaced" }),
    ]);
    expect(staged?.rows.map((row) => [row.letter, row.label])).toEqual([
      ["R", "renamed from old/name.ts"],
      ["T", "replaced"],
    ]);
  });
});

describe("splitPath", () => {
  it("splits name and folder (a nested repository keeps its trailing slash)", () => {
    expect(splitPath("src/a/b.ts")).toEqual({ name: "b.ts", folder: "src/a" });
    expect(splitPath("b.ts")).toEqual({ name: "b.ts", folder: "" });
    expect(splitPath("vendor/lib/")).toEqual({ name: "lib/", folder: "vendor" });
  });
});

import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { conflictedPaths, REVIEW_FILE_LIMIT, summarizeReview, unavailableReview, untrackedFilePaths } from "./review-summary.ts";
import type { GitReviewFile } from "./review-types.ts";

function file(path: string, kind: "modified" | "conflicted" | "untracked" = "modified"): GitReviewFile {
  return {
    conflicted: kind === "conflicted",
    indexStatus: kind === "untracked" ? "?" : kind === "conflicted" ? "U" : "M",
    kind,
    oldPath: "",
    path,
    staged: kind === "modified",
    unstaged: kind !== "modified",
    untracked: kind === "untracked",
    worktreeStatus: kind === "untracked" ? "?" : kind === "conflicted" ? "U" : " ",
  };
}

describe("summarizeReview", () => {
  it("answers the counts under the cap", () => {
    const files = [file("a"), file("b", "conflicted"), file("c", "untracked")];
    expect(summarizeReview({ root: "/r", branch: "main", files, lineStats: { additions: 7, deletions: 2 } })).toEqual({
      additions: 7,
      available: true,
      branch: "main",
      conflicts: 1,
      deletions: 2,
      files,
      filesTruncated: false,
      lineStatsAvailable: true,
      root: "/r",
      totalFiles: 3,
    });
  });

  it("puts zero placeholders when line counting failed", () => {
    expect(summarizeReview({ root: "/r", branch: "main", files: [file("a", "conflicted")], lineStats: null })).toMatchObject({
      additions: 0,
      deletions: 0,
      lineStatsAvailable: false,
      conflicts: 1,
      totalFiles: 1,
      filesTruncated: false,
    });
  });

  it("outside a repository: no files, zero counts, line stats available", () => {
    expect(unavailableReview("/home/p")).toEqual({
      additions: 0,
      available: false,
      branch: "",
      conflicts: 0,
      deletions: 0,
      files: [],
      filesTruncated: false,
      lineStatsAvailable: true,
      root: "/home/p",
      totalFiles: 0,
    });
  });

  it("leaves conflicted paths out of the sums and nested repositories out of the untracked lines", () => {
    const files = [file("a"), file("b", "conflicted"), file("c", "untracked"), file("nested/", "untracked")];
    expect([...conflictedPaths(files)]).toEqual(["b"]);
    expect(untrackedFilePaths(files)).toEqual(["c"]);
  });

  const kindArb = fc.constantFrom("modified" as const, "conflicted" as const, "untracked" as const);

  test.prop([
    fc.array(kindArb, { maxLength: REVIEW_FILE_LIMIT + 120 }),
    fc.option(fc.record({ additions: fc.nat(), deletions: fc.nat() }), { nil: null }),
  ])("keeps at most 500 paths; over the cap no line stats and no total, conflicts always counted", (kinds, lineStats) => {
    const files = kinds.map((kind, index) => file(`f${index}`, kind));
    const review = summarizeReview({ root: "/r", branch: "b", files, lineStats });
    const conflicts = kinds.filter((kind) => kind === "conflicted").length;
    expect(review.conflicts).toBe(conflicts);
    expect(review.files).toEqual(files.slice(0, REVIEW_FILE_LIMIT));
    if (files.length > REVIEW_FILE_LIMIT) {
      expect(review).toMatchObject({ filesTruncated: true, totalFiles: null, lineStatsAvailable: false, additions: 0, deletions: 0 });
    } else {
      expect(review).toMatchObject({
        filesTruncated: false,
        totalFiles: files.length,
        lineStatsAvailable: lineStats !== null,
        additions: lineStats?.additions ?? 0,
        deletions: lineStats?.deletions ?? 0,
      });
    }
  });
});

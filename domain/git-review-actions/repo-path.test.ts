/** Which paths a review action may name. */
import { describe, expect, it } from "vitest";
import { REVIEW_ACTION_MAX_PATHS, repoPathFailure, repoPathsFailure } from "./repo-path.ts";

describe("repoPathFailure", () => {
  it("accepts repository-relative paths as the status lists them", () => {
    for (const path of ["a.txt", "dir/sub/b c.ts", "ünï/ködé.md", "*.md", ":(glob)x", "..hidden", "x..y", ".github/ci.yml"]) {
      expect(repoPathFailure(path), path).toBeNull();
    }
  });

  it("refuses empty, absolute, escaping, dotted, control and .git paths", () => {
    for (const path of [
      "",
      "/etc/passwd",
      "\\\\server\\x",
      "C:\\x",
      "c:/x",
      "../x",
      "a/../../x",
      "a/..",
      "./a",
      "a/./b",
      "a//b",
      "a\0b",
      "a\nb",
      "a\x7fb",
      ".git/config",
      "sub/.GIT/hooks/x",
    ]) {
      expect(repoPathFailure(path), JSON.stringify(path)).not.toBeNull();
    }
  });

  it("keeps one trailing slash for a listed folder only when allowed", () => {
    expect(repoPathFailure("nested/")).not.toBeNull();
    expect(repoPathFailure("nested/", { allowFolder: true })).toBeNull();
    expect(repoPathFailure("nested//", { allowFolder: true })).not.toBeNull();
    expect(repoPathFailure("/", { allowFolder: true })).not.toBeNull();
  });
});

describe("repoPathsFailure", () => {
  it("needs 1 to 500 valid paths", () => {
    expect(repoPathsFailure([])).toBe("paths must name at least one file");
    expect(repoPathsFailure(Array.from({ length: REVIEW_ACTION_MAX_PATHS }, (_, i) => `f${i}`))).toBeNull();
    expect(repoPathsFailure(Array.from({ length: REVIEW_ACTION_MAX_PATHS + 1 }, (_, i) => `f${i}`))).toMatch(/at most 500/);
    expect(repoPathsFailure(["ok", "../no"])).toMatch(/"\.\.\/no"/);
  });
});

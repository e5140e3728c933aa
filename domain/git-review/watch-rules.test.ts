import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import {
  changesIgnoreRules,
  classifyWorktreeChange,
  gitDirsToWatch,
  isIgnoreRulesFile,
  isRelevantGitMetadata,
  MAX_WATCH_BUDGET,
  skipsWorktreeFolder,
  watchBudgetFor,
  watchBudgetMessage,
  watchesGitFolder,
} from "./watch-rules.ts";

const BOTH = { perWorktree: true, shared: true };
const OWN = { perWorktree: true, shared: false };
const SHARED = { perWorktree: false, shared: true };

describe("isRelevantGitMetadata", () => {
  it.each([
    "HEAD",
    "index",
    "packed-refs",
    "config",
    "MERGE_HEAD",
    "CHERRY_PICK_HEAD",
    "REVERT_HEAD",
    "refs",
    "refs/heads/main",
    "refs/heads/feature/x",
    "refs/stash",
    "refs/tags/v1",
    "rebase-merge",
    "rebase-merge/done",
    "rebase-apply/next",
    "info/exclude",
    "info/sparse-checkout",
    "config.worktree",
  ])("%s is relevant", (rel) => {
    expect(isRelevantGitMetadata(rel, BOTH)).toBe(true);
  });

  it.each([
    "",
    "index.lock",
    "HEAD.lock",
    "refs/heads/main.lock",
    "packed-refs.lock",
    "objects/ab/cdef0123",
    "objects/pack/pack-1.pack",
    "objects/info/packs",
    "logs/HEAD",
    "logs/refs/heads/main",
    "FETCH_HEAD",
    "ORIG_HEAD",
    "COMMIT_EDITMSG",
    "AUTO_MERGE",
    "MERGE_MSG",
    "description",
    "hooks/pre-commit",
    "gc.pid",
    "modules/sub/index",
    "worktrees/wt/HEAD",
    "lfs/objects/aa/bb",
    "info/refs",
  ])("%s is ordinary churn", (rel) => {
    expect(isRelevantGitMetadata(rel, BOTH)).toBe(false);
  });

  it("splits per-worktree and shared metadata between a linked worktree's git dir and the common dir", () => {
    expect(isRelevantGitMetadata("HEAD", OWN)).toBe(true);
    expect(isRelevantGitMetadata("index", OWN)).toBe(true);
    expect(isRelevantGitMetadata("refs/heads/main", OWN)).toBe(false);
    expect(isRelevantGitMetadata("HEAD", SHARED)).toBe(false);
    expect(isRelevantGitMetadata("index", SHARED)).toBe(false);
    expect(isRelevantGitMetadata("refs/heads/main", SHARED)).toBe(true);
    expect(isRelevantGitMetadata("packed-refs", SHARED)).toBe(true);
  });

  test.prop([fc.stringMatching(/^[a-zA-Z_/.-]{0,30}$/)])("a lock file is never relevant, nor anything under objects/ or logs/", (rel) => {
    expect(isRelevantGitMetadata(`${rel}.lock`, BOTH)).toBe(false);
    expect(isRelevantGitMetadata(`objects/${rel}`, BOTH)).toBe(false);
    expect(isRelevantGitMetadata(`logs/${rel}`, BOTH)).toBe(false);
  });
});

describe("watchesGitFolder", () => {
  it("enters only the folders that hold relevant metadata", () => {
    for (const rel of ["refs", "refs/heads", "refs/heads/feature", "rebase-merge", "rebase-apply", "info"])
      expect(watchesGitFolder(rel, BOTH)).toBe(true);
    for (const rel of ["objects", "objects/pack", "logs", "logs/refs", "hooks", "modules", "worktrees", "lfs"]) {
      expect(watchesGitFolder(rel, BOTH)).toBe(false);
    }
    expect(watchesGitFolder("refs", OWN)).toBe(false);
    expect(watchesGitFolder("rebase-merge", SHARED)).toBe(false);
  });
});

describe("gitDirsToWatch", () => {
  it("watches one git dir in both roles, or a linked worktree's git dir and the common dir", () => {
    expect(gitDirsToWatch("/r/.git", "/r/.git")).toEqual([{ dir: "/r/.git", role: BOTH }]);
    expect(gitDirsToWatch("/r/.git/worktrees/w", "/r/.git")).toEqual([
      { dir: "/r/.git/worktrees/w", role: OWN },
      { dir: "/r/.git", role: SHARED },
    ]);
  });
});

describe("classifyWorktreeChange", () => {
  it.each([
    ["", "root"],
    [".git", "git-entry"],
    [".git/index", "git-internal"],
    ["src/a.ts", "worktree"],
    [".gitignore", "worktree"],
    ["nested/.git", "worktree"],
    ["nested/.git/index", "nested-git"],
    ["a/b/.git/objects/x", "nested-git"],
  ])("%s is %s", (rel, kind) => {
    expect(classifyWorktreeChange(rel)).toBe(kind);
  });

  it("never enters a .git folder of the working tree", () => {
    expect(skipsWorktreeFolder(".git")).toBe(true);
    expect(skipsWorktreeFolder(".github")).toBe(false);
  });
});

describe("ignore rules", () => {
  it("knows the git dir files that change which paths are ignored, by role", () => {
    for (const rel of ["info/exclude", "info", "config"]) expect(changesIgnoreRules(rel, SHARED), rel).toBe(true);
    expect(changesIgnoreRules("config.worktree", OWN)).toBe(true);
    expect(changesIgnoreRules("config", OWN)).toBe(false);
    expect(changesIgnoreRules("info/exclude", OWN)).toBe(false);
    for (const rel of ["config.lock", "info/exclude.lock", "info/sparse-checkout", "index", "HEAD", "refs/heads/main"]) {
      expect(changesIgnoreRules(rel, BOTH), rel).toBe(false);
    }
  });

  it("knows a .gitignore at any depth, and nothing else", () => {
    for (const rel of [".gitignore", "src/.gitignore", "a/b/.gitignore"]) expect(isIgnoreRulesFile(rel), rel).toBe(true);
    for (const rel of [".gitignore.tmp", "a.gitignore", "src/.gitignore/x", ".gitattributes", ""])
      expect(isIgnoreRulesFile(rel), rel).toBe(false);
  });
});

describe("watchBudgetFor", () => {
  it("is 20,000, or a quarter of the system's watches if smaller, at least 1", () => {
    expect(watchBudgetFor(null)).toBe(MAX_WATCH_BUDGET);
    expect(MAX_WATCH_BUDGET).toBe(20_000);
    expect(watchBudgetFor(1_048_576)).toBe(20_000);
    expect(watchBudgetFor(8192)).toBe(2048);
    expect(watchBudgetFor(3)).toBe(1);
    for (const odd of [0, -5, Number.NaN]) expect(watchBudgetFor(odd)).toBe(MAX_WATCH_BUDGET);
  });

  it("says in its message that the review updates on Refresh only", () => {
    expect(watchBudgetMessage(20_000)).toBe("This repository has more than 20,000 folders to watch; the review updates on Refresh only.");
  });
});

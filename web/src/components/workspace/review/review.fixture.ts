/**
 * Test support for the review pane and badge: status and diff builders, and a scripted review backend behind
 * `fetch` (the network boundary of http.ts, via the composer's fakeBackend): GET status and diff answer from a
 * mutable model the test edits; actions answer `{ ok: true }` or what the test queued for them.
 */
import type { GitReviewDiff, GitReviewFile, ReviewFileDiff, ReviewStatus } from "../../../api/review.ts";
import { fakeBackend, type FakeAnswer, type RecordedRequest } from "../../composer/composer.fixture.ts";

export const REPO = "/work/app";

export function reviewFile(path: string, fields: Partial<GitReviewFile> = {}): GitReviewFile {
  return {
    conflicted: false,
    indexStatus: " ",
    kind: "modified",
    oldPath: "",
    path,
    staged: false,
    unstaged: true,
    untracked: false,
    worktreeStatus: "M",
    ...fields,
  };
}

export function reviewStatus(files: GitReviewFile[], fields: Partial<ReviewStatus> = {}): ReviewStatus {
  return {
    additions: 3,
    available: true,
    branch: "main",
    conflicts: files.filter((file) => file.conflicted).length,
    deletions: 1,
    files,
    filesTruncated: false,
    lineStatsAvailable: true,
    root: REPO,
    totalFiles: files.length,
    ...fields,
  };
}

export function section(scope: GitReviewDiff["scope"], patch: string, fields: Partial<GitReviewDiff> = {}): GitReviewDiff {
  return { binary: false, bytes: patch.length, lines: patch.split("\n").length, patch, scope, tooLarge: false, ...fields };
}

/** A modification of src/app.ts: two hunks. */
export const APP_PATCH = [
  "diff --git a/src/app.ts b/src/app.ts",
  "index 1111111..2222222 100644",
  "--- a/src/app.ts",
  "+++ b/src/app.ts",
  "@@ -1,3 +1,3 @@",
  " const a = 1;",
  "-const b = 2;",
  "+const b = 3;",
  " const c = 4;",
  "@@ -20,2 +20,3 @@ function tail() {",
  " x();",
  "+y();",
  " z();",
  "",
].join("\n");

export const FIRST_HUNK = "@@ -1,3 +1,3 @@\n const a = 1;\n-const b = 2;\n+const b = 3;\n const c = 4;\n";

export interface ReviewModel {
  status: ReviewStatus;
  diffs: Record<string, ReviewFileDiff>;
  /** When set, GET status answers 500 with this error. */
  statusError?: string;
}

/**
 * The fake review backend. `model` is what GET answers now; `queue(route, answer)` makes the next request to
 * an action route (`stage`, `unstage`, `hunk`, `discard`, `commit`) answer `answer` instead of `{ ok: true }`.
 */
export function reviewBackend(model: ReviewModel) {
  const queued: Record<string, FakeAnswer[]> = {};
  const handle = (request: RecordedRequest): FakeAnswer | undefined => {
    const url = new URL(request.path, "http://leyline.test");
    if (url.pathname === "/api/pi/review" && request.method === "GET") {
      if (model.statusError !== undefined) return { status: 500, body: { error: model.statusError } };
      return { body: structuredClone(model.status) };
    }
    if (url.pathname === "/api/pi/review/diff" && request.method === "GET") {
      const path = url.searchParams.get("path") ?? "";
      const diff = model.diffs[path];
      return diff === undefined ? { status: 500, body: { error: `${path} has no changes.` } } : { body: structuredClone(diff) };
    }
    const action = /^\/api\/pi\/review\/(stage|unstage|hunk|discard|commit)$/.exec(url.pathname)?.[1];
    if (action !== undefined) {
      const next = queued[action]?.shift();
      if (next !== undefined) return next;
      if (action === "discard") return { body: { ok: true, backupPath: "/home/me/.pi/agent/leyline-trash/review/app.ts" } };
      if (action === "commit") return { body: { ok: true, commit: "0123456789abcdef0123456789abcdef01234567", summary: "Fix the parser" } };
      return { body: { ok: true } };
    }
    return undefined;
  };
  const backend = fakeBackend(handle);
  return {
    ...backend,
    queue(route: "stage" | "unstage" | "hunk" | "discard" | "commit", answer: FakeAnswer) {
      (queued[route] ??= []).push(answer);
    },
    /** The requests to a path (without its query), in order. */
    to(path: string, method?: string): RecordedRequest[] {
      return backend.requests.filter((r) => r.path.split("?")[0] === path && (method === undefined || r.method === method));
    },
  };
}

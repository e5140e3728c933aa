/**
 * Typed functions for the Git review routes (spec "Git review routes": status and diff) and the review actions
 * (stage, unstage, stage or unstage a hunk, discard a file's working changes, commit).
 *
 * Types come from the server's contracts (domain/contract/http-review.ts, http-review-actions.ts) with type-only
 * imports: the schemas stay out of the bundle. Errors are `ApiError(status, message)` from http.ts. Every action
 * may answer 409 while the agent works in the repository (`isAgentWorking`): the person may confirm and send it
 * again with `whileAgentWorks: true`.
 */
import type { RouteBody, RouteResponse } from "../../../domain/contract/http-route.ts";
import type { reviewDiff, reviewStatus } from "../../../domain/contract/http-review.ts";
import type {
  reviewCommit,
  reviewDiscard,
  reviewHunk,
  reviewStage,
  ReviewActionOk,
  ReviewCommitResult,
  ReviewDiscardResult,
} from "../../../domain/contract/http-review-actions.ts";
import { ApiError, http } from "./http.ts";

export type { GitReviewDiff, GitReviewDiffScope, GitReviewFile, GitReviewKind } from "../../../domain/git-review/review-types.ts";
export type { ReviewServerMessage } from "../../../domain/contract/http-review.ts";
export type { ReviewActionOk, ReviewCommitResult, ReviewDiscardResult };

export type ReviewStatus = RouteResponse<typeof reviewStatus>;
export type ReviewFileDiff = RouteResponse<typeof reviewDiff>;
type PathsBody = RouteBody<typeof reviewStage>;
type HunkBody = RouteBody<typeof reviewHunk>;
type DiscardBody = RouteBody<typeof reviewDiscard>;
type CommitBody = RouteBody<typeof reviewCommit>;

/** One hunk to stage (from the working section) or unstage (from the staged section). */
export type HunkAction = Omit<HunkBody, "cwd" | "whileAgentWorks">;

/** Options every action takes: act although the agent is working in the repository (after the person confirmed). */
export interface ActionOptions {
  whileAgentWorks?: boolean;
}

const BASE = "/api/pi/review";

export function getReviewStatus(cwd: string, signal?: AbortSignal): Promise<ReviewStatus> {
  return http.get<ReviewStatus>(BASE, { query: { cwd }, ...(signal ? { signal } : {}) });
}

export function getReviewDiff(cwd: string, path: string, signal?: AbortSignal): Promise<ReviewFileDiff> {
  return http.get<ReviewFileDiff>(`${BASE}/diff`, { query: { cwd, path }, ...(signal ? { signal } : {}) });
}

/** The body with `whileAgentWorks: true` when the person confirmed (the field is left out otherwise). */
function withAgentFlag<T extends { whileAgentWorks?: boolean }>(body: T, options: ActionOptions): T {
  return options.whileAgentWorks === true ? { ...body, whileAgentWorks: true } : body;
}

export function stageFiles(cwd: string, paths: string[], options: ActionOptions = {}): Promise<ReviewActionOk> {
  return http.post<ReviewActionOk>(`${BASE}/stage`, withAgentFlag<PathsBody>({ cwd, paths }, options));
}

export function unstageFiles(cwd: string, paths: string[], options: ActionOptions = {}): Promise<ReviewActionOk> {
  return http.post<ReviewActionOk>(`${BASE}/unstage`, withAgentFlag<PathsBody>({ cwd, paths }, options));
}

export function applyHunk(cwd: string, hunk: HunkAction, options: ActionOptions = {}): Promise<ReviewActionOk> {
  return http.post<ReviewActionOk>(`${BASE}/hunk`, withAgentFlag<HunkBody>({ cwd, ...hunk }, options));
}

export function discardFile(cwd: string, path: string, options: ActionOptions = {}): Promise<ReviewDiscardResult> {
  return http.post<ReviewDiscardResult>(`${BASE}/discard`, withAgentFlag<DiscardBody>({ cwd, path, confirm: true }, options));
}

export function commitStaged(cwd: string, message: string, options: ActionOptions = {}): Promise<ReviewCommitResult> {
  return http.post<ReviewCommitResult>(`${BASE}/commit`, withAgentFlag<CommitBody>({ cwd, message }, options));
}

/** The 409 an action answers while the agent works in the repository (the person may act anyway). */
export function isAgentWorking(error: unknown): error is ApiError {
  return error instanceof ApiError && error.status === 409 && /^The agent is working\b/i.test(error.message);
}

/**
 * A 409 that says the repository is not as the review showed it (a hunk no longer in the file, nothing staged, a
 * merge in progress): the review is fetched again. The agent's 409 is a question, not news.
 */
export function isStaleReview(error: unknown): error is ApiError {
  return error instanceof ApiError && error.status === 409 && !isAgentWorking(error);
}

/** What the badge and the header count: the changed files (the shown ones when the list was cut). */
export function changedFileCount(status: ReviewStatus | null): number {
  if (status === null || !status.available) return 0;
  return status.totalFiles ?? status.files.length;
}

/**
 * The Git review actions (issue 14, beyond the spec's read-only "Git review routes"): stage and unstage files,
 * stage or unstage one hunk, discard a file's working changes (a copy is kept), commit the staged changes.
 *
 * Every body is closed (an unknown field answers 400) and names the folder (`cwd`, any folder inside the
 * repository) and, optionally, `whileAgentWorks: true` to act although an agent is mid-turn in the repository
 * (the 409 the first try answers names the session). The rules a schema cannot state (repository-relative paths,
 * the commit message's size) are domain/git-review-actions/'s and answer 400 too.
 *
 * Failures: 400 invalid_request (bad body, a cwd that is not absolute after `~`, bad path, discard without
 * `confirm: true`, a hunk of a file that is staged whole); 409 conflict (not a repository, a conflicted repository,
 * an agent mid-turn in the repository or in a folder above it, a hunk no longer in the file, a file that changed
 * while it was being discarded, nothing staged, git refusing: index.lock, hooks, identity); 500 review_failed (cwd
 * not a folder, git failing to run or read).
 */
import { Type, type Static, type TSchema } from "typebox";
import { defineRoute } from "./http-route.ts";
import { failsWith, literals } from "./schema-kit.ts";
import { REVIEW_ACTION_MAX_PATHS } from "../git-review-actions/repo-path.ts";

const tags = ["review"];

/** Largest body of POST /api/pi/review/hunk (a hunk of the review's largest shown diff, 1 MiB, JSON-escaped). */
export const REVIEW_HUNK_BODY_LIMIT_BYTES = 4 * 1024 * 1024;

function closed<P extends Record<string, TSchema>>(properties: P) {
  return failsWith(Type.Object(properties, { additionalProperties: false }), {
    additionalProperties: "body has an unsupported field",
    type: "body must be an object",
  });
}

/** Absolute (or `~/…`); the service refuses a relative one (a schema pattern could not say why). */
const cwd = failsWith(Type.String({ minLength: 1 }), "cwd must be a non-empty string");
const whileAgentWorks = Type.Optional(failsWith(Type.Boolean(), "whileAgentWorks must be a boolean"));
const repoPath = failsWith(Type.String({ minLength: 1 }), "path must be a non-empty string");
const paths = failsWith(
  Type.Array(failsWith(Type.String(), "paths[{index}] must be a string"), { minItems: 1, maxItems: REVIEW_ACTION_MAX_PATHS }),
  {
    type: "paths must be a list of paths",
    minItems: "paths must name at least one file",
    maxItems: `paths may name at most ${REVIEW_ACTION_MAX_PATHS} files`,
  },
);

export const ReviewActionOk = Type.Object({ ok: Type.Literal(true) });
export type ReviewActionOk = Static<typeof ReviewActionOk>;

export const ReviewDiscardResult = Type.Object({
  ok: Type.Literal(true),
  /** The copy of the working file as it was (null when the file did not exist in the working tree). */
  backupPath: Type.Union([Type.String(), Type.Null()]),
});
export type ReviewDiscardResult = Static<typeof ReviewDiscardResult>;

export const ReviewCommitResult = Type.Object({
  ok: Type.Literal(true),
  /** The new commit's full id. */
  commit: Type.String(),
  /** The first line of its message as git stored it. */
  summary: Type.String(),
});
export type ReviewCommitResult = Static<typeof ReviewCommitResult>;

export const ReviewPathsBody = closed({ cwd, paths, whileAgentWorks });
export type ReviewPathsBody = Static<typeof ReviewPathsBody>;

export const ReviewHunkBody = closed({
  cwd,
  path: repoPath,
  scope: failsWith(literals(["working", "staged"]), 'scope must be "working" or "staged"'),
  action: failsWith(literals(["stage", "unstage"]), 'action must be "stage" or "unstage"'),
  hunk: failsWith(Type.String({ minLength: 1 }), "hunk must be the text of one hunk, from its @@ line"),
  whileAgentWorks,
});
export type ReviewHunkBody = Static<typeof ReviewHunkBody>;

export const ReviewDiscardBody = closed({
  cwd,
  path: repoPath,
  // Checked by the service so that a missing or false confirm answers the action's own message.
  confirm: Type.Optional(failsWith(Type.Boolean(), "confirm must be true")),
  whileAgentWorks,
});
export type ReviewDiscardBody = Static<typeof ReviewDiscardBody>;

export const ReviewCommitBody = closed({
  cwd,
  message: failsWith(Type.String(), "message must be a string"),
  whileAgentWorks,
});
export type ReviewCommitBody = Static<typeof ReviewCommitBody>;

export const reviewStage = defineRoute("POST", "/api/pi/review/stage", {
  summary: "Stage files (their whole working changes, untracked files included)",
  tags,
  body: ReviewPathsBody,
  response: { 200: ReviewActionOk },
});

export const reviewUnstage = defineRoute("POST", "/api/pi/review/unstage", {
  summary: "Unstage files (the index goes back to HEAD for them; works before the first commit)",
  tags,
  body: ReviewPathsBody,
  response: { 200: ReviewActionOk },
});

export const reviewHunk = defineRoute("POST", "/api/pi/review/hunk", {
  summary: "Stage one working hunk or unstage one staged hunk, named by its exact text",
  tags,
  body: ReviewHunkBody,
  response: { 200: ReviewActionOk },
});

export const reviewDiscard = defineRoute("POST", "/api/pi/review/discard", {
  summary: "Discard a file's working-tree changes (staged changes stay); a copy of the working file is kept first",
  tags,
  body: ReviewDiscardBody,
  response: { 200: ReviewDiscardResult },
});

export const reviewCommit = defineRoute("POST", "/api/pi/review/commit", {
  summary: "Commit the staged changes with a message (hooks run as git runs them)",
  tags,
  body: ReviewCommitBody,
  response: { 200: ReviewCommitResult },
});

export const REVIEW_ACTION_ROUTES = [reviewStage, reviewUnstage, reviewHunk, reviewDiscard, reviewCommit] as const;

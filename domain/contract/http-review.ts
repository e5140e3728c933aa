/**
 * The Git review read routes (spec "Git review routes"): the status list, one file's diff, and the review events
 * WebSocket with its messages. The objects are closed (the spec lists every field; domain/git-review/review-types.ts
 * holds the TypeScript types, checked equal below).
 *
 * Missing query values answer 400 (spec "Conventions"); an invalid folder, a missing repository, a stale path or a
 * failing git run answer 500 (`review_failed`).
 *
 * Leyline's additions to the spec: `review_watch_error` may carry `retry: false` ("do not reconnect": the watch
 * budget or the system's limit of file watches), and the `bytes` and `lines` of a `tooLarge` diff section are lower
 * bounds when git's output was cut (the reader stops a little past 1 MiB).
 */
import { Type, type Static, type TSchema } from "typebox";
import {
  GIT_REVIEW_DIFF_SCOPES,
  GIT_REVIEW_KINDS,
  type GitReviewDiff as GitReviewDiffType,
  type GitReviewFile as GitReviewFileType,
  type ReviewDiffResponse as ReviewDiffResponseType,
  type ReviewStatus as ReviewStatusType,
} from "../git-review/review-types.ts";
import { contractChecker, type ContractChecker } from "./contract-check.ts";
import { defineRoute } from "./http-route.ts";
import { failsWith, literals, type SameType } from "./schema-kit.ts";

const tags = ["review"];

export const REVIEW_PATH = "/api/pi/review";
export const REVIEW_DIFF_PATH = "/api/pi/review/diff";
export const REVIEW_EVENTS_PATH = "/api/pi/review/events";

export const GitReviewFile = Type.Object(
  {
    conflicted: Type.Boolean(),
    indexStatus: Type.String({ description: "Git's index letter as `git status --short` shows it (space: unchanged)." }),
    kind: literals(GIT_REVIEW_KINDS),
    oldPath: Type.String({ description: "The source of a rename or copy, else empty." }),
    path: Type.String({ description: "Relative to the repository root; an untracked nested repository ends with `/`." }),
    staged: Type.Boolean(),
    unstaged: Type.Boolean(),
    untracked: Type.Boolean(),
    worktreeStatus: Type.String({ description: "Git's working-tree letter as `git status --short` shows it." }),
  },
  { title: "GitReviewFile", additionalProperties: false },
);

export const GitReviewDiff = Type.Object(
  {
    binary: Type.Boolean(),
    bytes: Type.Integer({
      minimum: 0,
      description: "The patch's size; for a `tooLarge` section possibly a lower bound (Leyline's addition).",
    }),
    directory: Type.Optional(Type.Boolean()),
    lines: Type.Integer({
      minimum: 0,
      description: "The patch's lines; for a `tooLarge` section possibly a lower bound (Leyline's addition).",
    }),
    patch: Type.String(),
    scope: literals(GIT_REVIEW_DIFF_SCOPES),
    tooLarge: Type.Boolean(),
  },
  { title: "GitReviewDiff", additionalProperties: false },
);

export const ReviewStatus = Type.Object(
  {
    additions: Type.Integer({ minimum: 0 }),
    available: Type.Boolean(),
    branch: Type.String(),
    conflicts: Type.Integer({ minimum: 0 }),
    deletions: Type.Integer({ minimum: 0 }),
    files: Type.Array(GitReviewFile),
    filesTruncated: Type.Boolean(),
    lineStatsAvailable: Type.Boolean(),
    root: Type.String(),
    totalFiles: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]),
  },
  { title: "ReviewStatus", additionalProperties: false },
);

export const ReviewDiffResponse = Type.Object(
  { path: Type.String(), diffs: Type.Array(GitReviewDiff) },
  { title: "ReviewDiffResponse", additionalProperties: false },
);

const _file: SameType<Static<typeof GitReviewFile>, GitReviewFileType> = true;
const _diff: SameType<Static<typeof GitReviewDiff>, GitReviewDiffType> = true;
const _status: SameType<Static<typeof ReviewStatus>, ReviewStatusType> = true;
const _diffResponse: SameType<Static<typeof ReviewDiffResponse>, ReviewDiffResponseType> = true;
void [_file, _diff, _status, _diffResponse];

function requiredText(name: string, description: string) {
  return failsWith(Type.String({ minLength: 1, description }), {
    type: `${name} must be a string`,
    required: `${name} is required`,
    minLength: `${name} is required`,
  });
}

const CwdQuery = requiredText("cwd", "The project folder (absolute).");

export const reviewStatus = defineRoute("GET", REVIEW_PATH, {
  summary: "The Git review status list of a project folder",
  description: "At most 500 changed paths; `available: false` outside a repository. Reading never changes Git state (no optional locks).",
  tags,
  querystring: Type.Object({ cwd: CwdQuery }),
  response: { 200: ReviewStatus },
});

export const reviewDiff = defineRoute("GET", REVIEW_DIFF_PATH, {
  summary: "The diff sections of one changed file of the review",
  description:
    "`path` must be a changed path of the bounded status list. Staged and working sections, or one conflict section; over 1 MiB or 5,000 lines `tooLarge` with an empty patch (its `bytes` and `lines` may then be lower bounds: git's output is read only a little past 1 MiB).",
  tags,
  querystring: Type.Object({ cwd: CwdQuery, path: requiredText("path", "A changed path, relative to the repository root.") }),
  response: { 200: ReviewDiffResponse },
});

export const reviewEventsSocket = defineRoute("GET", REVIEW_EVENTS_PATH, {
  summary: "The review events WebSocket: a hint to fetch the review again when the working tree or Git state changes",
  description:
    "Upgrade to a WebSocket (a plain GET answers 426, a missing cwd 400). Messages are declared in REVIEW_SERVER_MESSAGES (domain/contract/http-review.ts).",
  tags,
  querystring: Type.Object({ cwd: CwdQuery }),
  response: { 101: Type.Null({ description: "Switching protocols: the socket is open." }) },
});

export const REVIEW_ROUTES = [reviewStatus, reviewDiff, reviewEventsSocket] as const;

// ---- the review events socket -----------------------------------------------------------------------------

const Empty = Type.Object({}, { additionalProperties: false });

/** Server → client: each type and the schema of its `data` (null: the message has none, the heartbeat). */
export const REVIEW_SERVER_MESSAGES = {
  ping: null,
  review_ready: Empty,
  review_change: Type.Object({ root: Type.String() }, { additionalProperties: false }),
  review_unavailable: Empty,
  review_watch_error: Type.Object(
    {
      message: Type.String(),
      retry: Type.Optional(
        Type.Literal(false, {
          description:
            "Leyline's addition to the spec: reconnecting would fail the same way (the repository has more folders than the watcher may watch, or the system's limit of file watches is reached), so the client does not reconnect; the review updates on Refresh only. Absent: the client reconnects as usual.",
        }),
      ),
    },
    { additionalProperties: false },
  ),
} as const satisfies Record<string, TSchema | null>;

export type ReviewServerMessageType = keyof typeof REVIEW_SERVER_MESSAGES;

/** A review socket message (`ping` has no data). */
export type ReviewServerMessage =
  | { type: "ping" }
  | { type: "review_ready"; data: Record<string, never> }
  | { type: "review_change"; data: { root: string } }
  | { type: "review_unavailable"; data: Record<string, never> }
  | { type: "review_watch_error"; data: { message: string; retry?: false } };

/** The message types after which the server closes the socket. */
export const REVIEW_FINAL_MESSAGES: readonly ReviewServerMessageType[] = ["review_unavailable", "review_watch_error"];

const ReviewEnvelope = Type.Object(
  { type: literals(Object.keys(REVIEW_SERVER_MESSAGES) as ReviewServerMessageType[]), data: Type.Optional(Type.Unknown()) },
  { additionalProperties: false },
);

let envelopeChecker: ContractChecker<typeof ReviewEnvelope> | null = null;
const dataCheckers = new Map<ReviewServerMessageType, ContractChecker<TSchema>>();

/** Why a review socket message breaks the contract, or null when it holds (the tests check every message). */
export function reviewMessageFailure(message: unknown): string | null {
  envelopeChecker ??= contractChecker(ReviewEnvelope, "message");
  const envelope = envelopeChecker.failure(message);
  if (envelope !== null) return envelope.message;
  const { type, data } = message as Static<typeof ReviewEnvelope>;
  const schema: TSchema | null = REVIEW_SERVER_MESSAGES[type];
  if (schema === null) return data === undefined ? null : `${type} carries no data`;
  let checker = dataCheckers.get(type);
  if (checker === undefined) dataCheckers.set(type, (checker = contractChecker(schema, `${type}.data`)));
  return checker.failure(data)?.message ?? null;
}

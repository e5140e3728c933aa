/**
 * Git review actions (issue 14, beyond the spec's read-only review routes): stage, unstage, hunk, discard,
 * commit, thin over adapters/git-review-actions/review-actions.ts. The contract (bodies, answers, what each
 * failure says) is domain/contract/http-review-actions.ts. Each route is a POST; the app's origin policy and
 * Host allow-list apply as to every write.
 */
import type { FastifyPluginAsync } from "fastify";
import type { ReadSide } from "../adapters/read-side/read-side.ts";
import type { RuntimeHost } from "../adapters/runtime-host/runtime-host.ts";
import { createReviewActions } from "../adapters/git-review-actions/review-actions.ts";
import { busyAgentsIn } from "../adapters/session-resolution/session-cwd.ts";
import {
  REVIEW_HUNK_BODY_LIMIT_BYTES,
  reviewCommit,
  reviewDiscard,
  reviewHunk,
  reviewStage,
  reviewUnstage,
} from "../domain/contract/http-review-actions.ts";
import { typed } from "./contract.ts";

export interface ReviewActionsRoutesOptions {
  readonly readSide: ReadSide;
  readonly host: RuntimeHost;
  /** pi's agent dir (discarded changes are kept under its leyline-trash). */
  readonly agentDir: string;
}

export const reviewActionsRoutes: FastifyPluginAsync<ReviewActionsRoutesOptions> = async (app, options) => {
  const { host, agentDir } = options;
  const actions = createReviewActions({ agentDir, busyAgents: (root) => busyAgentsIn(host, root) });
  const api = typed(app);

  api.post(reviewStage.url, { schema: reviewStage.schema }, async (request) => actions.stage(request.body));
  api.post(reviewUnstage.url, { schema: reviewUnstage.schema }, async (request) => actions.unstage(request.body));
  api.post(reviewHunk.url, { schema: reviewHunk.schema, bodyLimit: REVIEW_HUNK_BODY_LIMIT_BYTES }, async (request) =>
    actions.hunk(request.body),
  );
  api.post(reviewDiscard.url, { schema: reviewDiscard.schema }, async (request) => actions.discard(request.body));
  api.post(reviewCommit.url, { schema: reviewCommit.schema }, async (request) => actions.commit(request.body));
};

/**
 * Rollout feedback (spec "Rollout feedback route"; contract in domain/contract/http-rollout-feedback.ts): a
 * person's verdict on one transcript entry in leyline.sqlite (adapters/rollout-feedback/rollout-feedback-store.ts).
 * Thin: the schema checks the body (400 for a missing field, a wrong type, an unknown label, a note over 4,000
 * characters), the store writes, and the read side's detail feeds are told, so that every open view of the session
 * (GET /api/pi/sessions/:id, the events socket's snapshot and deltas) shows the change. The session and the entry
 * are not checked against the session file (the spec's rule): feedback for an entry no detail shows is kept and
 * shown nowhere.
 */
import type { FastifyPluginAsync } from "fastify";
import { postRolloutFeedback } from "../domain/contract/http-rollout-feedback.ts";
import { FEEDBACK_BODY_LIMIT_BYTES } from "../domain/rollout-feedback/rollout-feedback.ts";
import { clearRolloutFeedback, setRolloutFeedback } from "../adapters/rollout-feedback/rollout-feedback-store.ts";
import type { ReadSide } from "../adapters/read-side/read-side.ts";
import type { TraceService } from "../adapters/traces/trace-service.ts";
import { typed } from "./contract.ts";

export interface RolloutFeedbackRoutesOptions {
  readonly readSide: ReadSide;
  /** The verdict is also a score of the run that wrote the entry (spec "Trace routes": stored scores). */
  readonly traces?: TraceService;
  /** Milliseconds since the epoch (tests pass a fixed clock). Default Date.now. */
  readonly now?: () => number;
}

export const rolloutFeedbackRoutes: FastifyPluginAsync<RolloutFeedbackRoutesOptions> = async (app, options) => {
  const now = options.now ?? Date.now;
  const { readSide } = options;

  typed(app).post(
    postRolloutFeedback.url,
    { schema: postRolloutFeedback.schema, bodyLimit: FEEDBACK_BODY_LIMIT_BYTES },
    async (request) => {
      const sessionId = request.params.id;
      const { cwd, entryId, sessionPath } = request.body;
      const label = request.body.label ?? "";
      const { db } = await readSide.database();
      const feedback =
        label === ""
          ? (await clearRolloutFeedback(db, sessionId, entryId), null)
          : await setRolloutFeedback(db, {
              cwd,
              sessionId,
              sessionPath,
              entryId,
              label,
              feedbackText: (request.body.feedbackText ?? "").trim(),
              updatedAt: now(),
            });
      await options.traces?.feedbackChanged(
        sessionId,
        entryId,
        feedback === null ? null : { helpful: feedback.label === "helpful", comment: feedback.feedbackText },
      );
      // Open views of the session (before the read side is ready there are none).
      await readSide
        .current()
        ?.details.feedbackChanged(sessionId)
        .catch((error: unknown) => request.log.error({ err: error }, "rollout feedback: open views not updated"));
      return { ok: true as const, feedback };
    },
  );
};

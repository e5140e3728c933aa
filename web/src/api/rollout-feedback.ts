/**
 * The rollout feedback route (spec "Rollout feedback route"): POST /api/pi/sessions/:id/feedback on the selected
 * backend (`http`), which stores a verdict on one transcript entry (helpful or unhelpful, with an optional note of
 * at most FEEDBACK_TEXT_MAX characters) or clears it (label ""). The entry shows the stored state from then on
 * (its rolloutFeedback/rolloutFeedbackText), in every window, through the events socket.
 */
import type { postRolloutFeedback } from "../../../domain/contract/http-rollout-feedback.ts";
import type { RouteResponse } from "../../../domain/contract/http-route.ts";
import type { RolloutFeedback } from "../../../domain/transcript/transcript-types.ts";
import { http } from "./http.ts";

export { FEEDBACK_TEXT_MAX } from "../../../domain/rollout-feedback/rollout-feedback.ts";

/** `{ ok: true, feedback }`: the stored record, or null once cleared. */
export type RolloutFeedbackResponse = RouteResponse<typeof postRolloutFeedback>;

/** Which session an entry belongs to, as the route names it. */
export interface FeedbackTarget {
  sessionId: string;
  cwd: string;
  /** The session file. */
  sessionPath: string;
}

/** POST /api/pi/sessions/:id/feedback { cwd, entryId, sessionPath, label, feedbackText }; label "" clears. */
export function saveRolloutFeedback(
  target: FeedbackTarget,
  entryId: string,
  label: RolloutFeedback,
  feedbackText = "",
): Promise<RolloutFeedbackResponse> {
  return http.post<RolloutFeedbackResponse>(`/api/pi/sessions/${encodeURIComponent(target.sessionId)}/feedback`, {
    cwd: target.cwd,
    entryId,
    sessionPath: target.sessionPath,
    label,
    ...(label === "" ? {} : { feedbackText }),
  });
}

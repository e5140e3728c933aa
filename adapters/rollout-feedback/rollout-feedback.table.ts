/**
 * Row type of `rollout_feedback` (created by migrations/0005-rollout-feedback.ts): the single source of its type.
 * One row per (session id, entry id); `label` is "helpful" or "unhelpful" (a CHECK); a cleared verdict has no row.
 * `updated_at` is milliseconds since the epoch.
 */
import type { Selectable } from "kysely";
import type { RolloutFeedbackLabel } from "../../domain/rollout-feedback/rollout-feedback.ts";

export interface RolloutFeedbackTable {
  session_id: string;
  entry_id: string;
  cwd: string;
  session_path: string;
  label: RolloutFeedbackLabel;
  feedback_text: string;
  updated_at: number;
}

export type RolloutFeedbackRow = Selectable<RolloutFeedbackTable>;

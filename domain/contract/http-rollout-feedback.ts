/**
 * The rollout feedback route (spec "Rollout feedback route"): POST /api/pi/sessions/:id/feedback stores a person's
 * verdict on one transcript entry (helpful or unhelpful, with an optional note) in leyline.sqlite, or clears it.
 * `:id` becomes the record's sessionId; the route does not check the session or the entry against the file.
 *
 * Departures (README "HTTP API conventions"): a missing field, a field of the wrong type or an unknown label
 * answers 400 (the spec says 500); ids are at most 256 characters, cwd and sessionPath at most 4,096, the note at
 * most 4,000 (400 above); bodies up to 64 KiB (413 above). Fields the route does not know are ignored.
 */
import { Type, type Static } from "typebox";
import {
  FEEDBACK_ID_MAX,
  FEEDBACK_PATH_MAX,
  FEEDBACK_TEXT_MAX,
  ROLLOUT_FEEDBACK_LABELS,
  type RolloutFeedbackRecord as RolloutFeedbackRecordType,
} from "../rollout-feedback/rollout-feedback.ts";
import { defineRoute } from "./http-route.ts";
import { failsWith, literals, type SameType } from "./schema-kit.ts";

const tags = ["rollout feedback"];

/** A required string of 1 to `max` characters, each failure in words. */
function requiredText(name: string, max: number) {
  return failsWith(Type.String({ minLength: 1, maxLength: max }), {
    type: `${name} must be a string`,
    required: `${name} is required`,
    minLength: `${name} must not be empty`,
    maxLength: `${name} must be at most ${max} characters`,
  });
}

export const RolloutFeedbackRecord = Type.Object(
  {
    cwd: Type.String(),
    sessionId: Type.String(),
    sessionPath: Type.String(),
    entryId: Type.String(),
    label: literals(ROLLOUT_FEEDBACK_LABELS),
    feedbackText: Type.String({ maxLength: FEEDBACK_TEXT_MAX }),
    updatedAt: Type.Number({ description: "Milliseconds since the epoch." }),
  },
  { title: "RolloutFeedback", additionalProperties: false },
);

const _record: SameType<Static<typeof RolloutFeedbackRecord>, RolloutFeedbackRecordType> = true;
void _record;

export const RolloutFeedbackBody = Type.Object({
  cwd: requiredText("cwd", FEEDBACK_PATH_MAX),
  entryId: requiredText("entryId", FEEDBACK_ID_MAX),
  sessionPath: requiredText("sessionPath", FEEDBACK_PATH_MAX),
  feedbackText: Type.Optional(
    failsWith(Type.String({ maxLength: FEEDBACK_TEXT_MAX }), {
      type: "feedbackText must be a string",
      maxLength: `feedbackText must be at most ${FEEDBACK_TEXT_MAX} characters`,
    }),
  ),
  label: Type.Optional(failsWith(literals([...ROLLOUT_FEEDBACK_LABELS, ""]), 'label must be "helpful", "unhelpful" or ""')),
});
export type RolloutFeedbackBody = Static<typeof RolloutFeedbackBody>;

export const postRolloutFeedback = defineRoute("POST", "/api/pi/sessions/:id/feedback", {
  summary: "Set or clear the rollout feedback of one transcript entry",
  description:
    'label "helpful" or "unhelpful" stores the verdict (replacing an earlier one; feedbackText is its note, "" when ' +
    'absent) and answers it; label "" or no label clears it (feedbackText is then ignored) and answers feedback null. ' +
    "Open views of the session get the change on the events socket (a session_delta replacing the entry).",
  tags,
  params: Type.Object({ id: requiredText("id", FEEDBACK_ID_MAX) }),
  body: RolloutFeedbackBody,
  response: {
    200: Type.Object({ ok: Type.Literal(true), feedback: Type.Union([RolloutFeedbackRecord, Type.Null()]) }),
  },
});

export const ROLLOUT_FEEDBACK_ROUTES = [postRolloutFeedback] as const;

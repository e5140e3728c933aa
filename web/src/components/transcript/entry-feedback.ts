/**
 * What the rollout feedback controls of transcript entries need from the transcript around them: which session
 * (id, cwd, file) the entries belong to. TranscriptView provides it; an entry shown without it (no saved session)
 * offers no feedback controls.
 */
import type { InjectionKey, Ref } from "vue";
import type { FeedbackTarget } from "../../api/rollout-feedback.ts";

export const FEEDBACK_TARGET: InjectionKey<Readonly<Ref<FeedbackTarget | null>>> = Symbol("rollout feedback target");

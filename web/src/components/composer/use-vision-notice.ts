/**
 * What the composer says about images its session's model cannot read (README "Vision agent"): they go to the
 * vision agent, with the vision model and where it is set (GET /api/pi/vision/config, the browser's route: spec
 * "the composer loads its effective configuration separately from the Settings editor"), or, when no usable vision
 * model applies, that the prompt will be refused.
 *
 * Rules kept:
 * - Said only while images are attached and the session's model is known to have no image input (a model whose
 *   capabilities are not known yet, or no model at all, says nothing: the server decides then).
 * - One resolve request per (session, model, images attached or not): typing changes none of them, so it asks
 *   nothing. Removing the images and attaching again asks afresh (Settings may have changed meanwhile). A request
 *   whose key is gone is aborted and its answer dropped.
 * - A usable vision model is one the server would accept (domain/vision/vision-attachments.ts `visionModelProblem`):
 *   checked against the model list when one is known, otherwise the resolved model is shown as it is.
 * - A failed request is said in the server's words; a backend without the vision routes (404) says nothing.
 *   Nothing here ever blocks sending: the server checks again when the prompt arrives.
 */
import { computed, onScopeDispose, shallowRef, watch } from "vue";
import type { Model } from "../../../../domain/runtime/runtime-types.ts";
import { visionModelProblem } from "../../../../domain/vision/vision-attachments.ts";
import type { VisionConfig, VisionConfigSource } from "../../../../domain/vision/vision-types.ts";
import { ApiError, errorMessage, isAbort } from "../../api/http.ts";
import { getVisionConfig } from "../../api/vision.ts";

type ModelFacts = Pick<Model, "provider" | "id" | "supportsImages">;

export interface VisionNoticeHost {
  sessionId: () => string;
  /** The session's folder ("" when not known: nothing is asked). */
  cwd: () => string;
  /** The session's file, when it has one (the session scope of the vision settings). */
  sessionPath: () => string | undefined;
  /** The session's model; undefined when not known. */
  model: () => ModelFacts | undefined;
  /** The models the session may use (the vision model must be among them); empty when not known. */
  models: () => readonly ModelFacts[];
  imageCount: () => number;
  /** Asked whenever images become attached: make the model's capabilities known (the folder's list before pi runs). */
  learnModels?: () => void;
}

/** agent: images go to the vision agent; refused: no usable vision model; error: it could not be checked. */
export type VisionNoticeKind = "checking" | "agent" | "refused" | "error";

export interface VisionNotice {
  kind: VisionNoticeKind;
  text: string;
}

/** The answer for one key: the effective vision model and where it is set, or the failure's words and status. */
export type ResolveOutcome = { resolution: Pick<VisionConfig, "model" | "modelSource"> } | { error: string; status: number };

export const VISION_SETTINGS_PLACE = "Settings → Vision";

const SOURCE_WORDS: Record<VisionConfigSource, string> = {
  session: "from this session's settings",
  project: "from project settings",
  global: "from global settings",
  none: "by default",
};

/** The notice for an outcome (null: still asking), pure. `models` empty: availability is not known. */
export function visionNoticeOf(outcome: ResolveOutcome | null, models: readonly ModelFacts[]): VisionNotice | null {
  if (outcome === null) return { kind: "checking", text: "Images go to the vision agent (checking its model…)" };
  if ("error" in outcome) {
    if (outcome.status === 404) return null;
    return { kind: "error", text: `Images go to the vision agent, whose model could not be checked: ${outcome.error}` };
  }
  const model = outcome.resolution.model.trim();
  if (model === "") {
    return {
      kind: "refused",
      text: `This model does not take images and no vision model is set: the prompt will be refused. ${VISION_SETTINGS_PLACE}`,
    };
  }
  const problem = models.length > 0 ? visionModelProblem(model, models) : null;
  if (problem !== null) {
    return { kind: "refused", text: `This model does not take images. ${problem}: the prompt will be refused. ${VISION_SETTINGS_PLACE}` };
  }
  return { kind: "agent", text: `Images go to the vision agent (${model}, ${SOURCE_WORDS[outcome.resolution.modelSource]})` };
}

/** The resolve key while the notice applies: session and model; null otherwise (no images, or a model that reads them). */
function keyOf(host: VisionNoticeHost): string | null {
  const model = host.model();
  if (host.imageCount() === 0 || model === undefined || model.supportsImages || host.cwd() === "") return null;
  return `${host.sessionId()}\n${model.provider}/${model.id}`;
}

export function useVisionNotice(host: VisionNoticeHost) {
  const key = computed(() => keyOf(host));
  const answer = shallowRef<{ key: string; outcome: ResolveOutcome } | null>(null);
  let controller: AbortController | null = null;

  async function ask(asked: string): Promise<void> {
    const current = new AbortController();
    controller = current;
    const sessionPath = host.sessionPath();
    let outcome: ResolveOutcome;
    try {
      const target = { cwd: host.cwd(), ...(sessionPath ? { sessionPath } : {}) };
      const config = await getVisionConfig(target, current.signal);
      outcome = { resolution: { model: config.model, modelSource: config.modelSource } };
    } catch (problem) {
      if (isAbort(problem) || current.signal.aborted) return;
      outcome = { error: errorMessage(problem), status: problem instanceof ApiError ? problem.status : 0 };
    }
    if (current.signal.aborted || key.value !== asked) return;
    answer.value = { key: asked, outcome };
  }

  watch(
    key,
    (next) => {
      controller?.abort();
      controller = null;
      answer.value = null;
      if (next !== null) void ask(next);
    },
    { immediate: true },
  );
  watch(
    () => host.imageCount() > 0,
    (attached) => {
      if (attached) host.learnModels?.();
    },
    { immediate: true },
  );
  onScopeDispose(() => controller?.abort());

  const notice = computed<VisionNotice | null>(() => {
    if (key.value === null) return null;
    const current = answer.value;
    return visionNoticeOf(current !== null && current.key === key.value ? current.outcome : null, host.models());
  });

  return { notice };
}

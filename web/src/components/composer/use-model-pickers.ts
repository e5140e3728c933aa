/**
 * What the composer's model and thinking pickers show (and what /model and /thinking complete): the runtime's
 * model, level and lists while pi runs; before that the session's own model and level (`facts`) and the folder's
 * model list, a bounded, cached preview on the server (GET /api/pi/state?cwd) fetched once, when a picker or the
 * /model argument list is opened. A change of models in Settings (a provider added, a sign-in) makes the next
 * opening ask again. Also the notice that pi could not use the session's model and took another.
 *
 * `loadPreview` answers once the list is there: a call while it is on its way waits for the same request. An
 * answer asked for before `reset` (another session) is dropped: it is the previous folder's list.
 */
import { computed, ref, shallowRef, watch, type ComputedRef } from "vue";
import type { ActiveState, Model } from "../../../../domain/runtime/runtime-types.ts";
import { runtimeState } from "../../api/runtime-actions.ts";
import { fallbackLabel, runtimeNotices, type ModelFallbackNotice, type ViewFacts } from "../../lib/session-facts.ts";
import { usePiSettingsStore } from "../../stores/pi-settings.store.ts";

export interface ModelPickersHost {
  /** The session's folder ("" or undefined when not known). */
  cwd: () => string | undefined;
  facts: () => Pick<ViewFacts, "model" | "thinkingLevel"> | undefined;
  /** The runtime's state; null before pi runs. */
  state: ComputedRef<ActiveState | null>;
  /** No runtime yet: the preview is the model list. */
  dormant: ComputedRef<boolean>;
  fail: (problem: unknown) => void;
}

export type PreviewState = "idle" | "loading" | "ready" | "error";

export function useModelPickers(host: ModelPickersHost) {
  const preview = shallowRef<Model[]>([]);
  const previewState = ref<PreviewState>("idle");

  /** The request on its way (null: none), and which session's it is (bumped by `reset`). */
  let loading: Promise<void> | null = null;
  let generation = 0;

  /** The folder's models, fetched once while there is no runtime; resolves when they are in (or failed). */
  function loadPreview(): Promise<void> {
    if (loading !== null) return loading;
    if (!host.dormant.value || previewState.value === "ready") return Promise.resolve();
    const asked = generation;
    previewState.value = "loading";
    const request = fetchPreview(asked).finally(() => {
      if (loading === request) loading = null;
    });
    loading = request;
    return request;
  }

  async function fetchPreview(asked: number): Promise<void> {
    try {
      const answer = await runtimeState(host.cwd() || undefined);
      if (asked !== generation) return;
      preview.value = answer.active.state.availableModels;
      previewState.value = "ready";
    } catch (problem) {
      if (asked !== generation) return;
      previewState.value = "error";
      host.fail(problem);
    }
  }

  const piSettings = usePiSettingsStore();
  watch(
    () => piSettings.modelsChangeCount,
    () => {
      if (previewState.value !== "loading") previewState.value = "idle";
    },
  );

  const dormantModel = computed<Model | undefined>(() => {
    const model = host.facts()?.model ?? null;
    if (model === null) return undefined;
    const known = preview.value.find((m) => m.provider === model.provider && m.id === model.id);
    return (
      known ?? {
        id: model.id,
        name: model.id,
        provider: model.provider,
        supportsImages: true,
        supportsUltrafast: false,
        availableThinkingLevels: [],
      }
    );
  });
  const state = host.state;
  const models = computed(() => state.value?.availableModels ?? preview.value);
  const model = computed(() => (state.value ? state.value.model : dormantModel.value));
  const thinking = computed(() => (state.value ? state.value.thinkingLevel : (host.facts()?.thinkingLevel ?? "")));
  const levels = computed(() => state.value?.availableThinkingLevels ?? dormantModel.value?.availableThinkingLevels ?? []);
  const shown = computed(() => state.value !== null || (host.dormant.value && (host.facts()?.model ?? null) !== null));
  /** pi could not use the session's model and took another: said beside the model. */
  const fallback = computed(() => {
    const notice = runtimeNotices(state.value).find((n): n is ModelFallbackNotice => n.kind === "model-fallback");
    return notice === undefined ? null : { message: notice.message, label: fallbackLabel(notice) };
  });

  /** Another session: its folder's list is asked for again. */
  function reset(): void {
    generation += 1;
    loading = null;
    preview.value = [];
    previewState.value = "idle";
  }

  return { models, model, thinking, levels, shown, fallback, previewState, loadPreview, reset };
}

export type ModelPickers = ReturnType<typeof useModelPickers>;

/**
 * Whether the Settings modal offers "Vision": the selected backend serves the vision routes
 * (api/vision.ts `servesVisionRoutes`), asked again whenever the selected backend changes. False until it said so.
 */
import { onScopeDispose, ref, watch, type Ref } from "vue";
import { servesVisionRoutes } from "../../api/vision.ts";
import { useBackendStore } from "../../stores/backend.store.ts";

export function useVisionRoutes(): Ref<boolean> {
  const backend = useBackendStore();
  const served = ref(false);
  let controller: AbortController | null = null;
  watch(
    () => (backend.status === "ready" ? backend.info : null),
    (info) => {
      controller?.abort();
      served.value = false;
      if (info === null) return;
      const current = new AbortController();
      controller = current;
      void servesVisionRoutes(current.signal).then((answer) => {
        if (!current.signal.aborted) served.value = answer;
      });
    },
    { immediate: true },
  );
  onScopeDispose(() => controller?.abort());
  return served;
}

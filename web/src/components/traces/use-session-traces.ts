/**
 * A session's traces for links into the Traces view: the transcript links each user turn to the run it started
 * (the trace whose `metadata.userEntryId` is the turn's entry id), the research panel links a thread to its
 * researcher's run (the newest trace of the child session). One read per session (GET /api/pi/traces?sessionId
 * &limit=200, kept in the traces store and shared by every caller), refreshed by the store when a
 * `trace_updated` of that session names a run the list lacks or has not yet tied to its user turn. Nothing is read when the backend records no traces or no session is given; the watch ends
 * with the caller's scope. A component mounted without the app's Pinia (alone, in a test) links nothing.
 */
import { computed, onScopeDispose, watch } from "vue";
import { useTracesStore } from "../../stores/traces.store.ts";
import { tracesByUserEntry } from "./trace-view.ts";

/** The traces store, or null when no Pinia is active (useStore throws then). */
function tracesStoreOrNull(): ReturnType<typeof useTracesStore> | null {
  try {
    return useTracesStore();
  } catch {
    return null;
  }
}

export function useSessionTraces(sessionId: () => string | null) {
  const traces = tracesStoreOrNull();
  if (traces === null) return { traceForEntry: (): string | null => null, newestTraceId: computed((): string | null => null) };
  let stop: (() => void) | null = null;

  watch(
    () => [traces.available, sessionId()] as const,
    ([available, id]) => {
      stop?.();
      stop = available && id !== null && id !== "" ? traces.watchSession(id) : null;
    },
    { immediate: true },
  );
  onScopeDispose(() => stop?.());

  const list = computed(() => {
    const id = sessionId();
    return traces.available && id !== null ? (traces.sessionTraces[id]?.traces ?? []) : [];
  });
  const byUserEntry = computed(() => tracesByUserEntry(list.value));
  /** The session's newest run, or null. */
  const newestTraceId = computed(() => list.value[0]?.id ?? null);

  /** The run a user turn (its entry id) started, or null. */
  function traceForEntry(entryId: string): string | null {
    return byUserEntry.value[entryId] ?? null;
  }

  return { traceForEntry, newestTraceId };
}

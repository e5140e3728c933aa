/**
 * The Memory inspector's state for one folder (and session): the context and records from the selected backend,
 * their counts, and the person's changes. Every change answers the server's list (or the one record changed),
 * which replaces what is shown; counts are recounted from it with the server's rule. A newer load replaces an
 * older one still on its way (the older answer is dropped and its request aborted). Changes reject with the
 * server's words (ApiError); `load` keeps its failure in `error`.
 */
import { computed, onScopeDispose, ref, shallowRef } from "vue";
import { memoryCounts } from "../../../../domain/memories/memory-rules.ts";
import {
  createMemory,
  deleteMemories,
  fetchMemories,
  setMemoryStatus,
  updateMemory,
  type Memory,
  type MemoryContext,
  type MemoryScope,
  type MemoryStatus,
  type MemoryTarget,
} from "../../api/memories.ts";
import { errorMessage, isAbort } from "../../api/http.ts";
import { upsertMemory } from "./memory-view.ts";

export function useMemoryInspector(target: () => MemoryTarget) {
  const context = shallowRef<MemoryContext | null>(null);
  const memories = shallowRef<Memory[]>([]);
  const loading = ref(false);
  const error = ref("");
  /** A change is on its way: the controls that start another wait. */
  const busy = ref(false);
  const counts = computed(() => memoryCounts(memories.value));
  let controller: AbortController | null = null;

  async function load(): Promise<void> {
    controller?.abort();
    const current = new AbortController();
    controller = current;
    loading.value = true;
    error.value = "";
    try {
      const view = await fetchMemories(target(), current.signal);
      if (controller !== current) return;
      context.value = view.context;
      memories.value = view.memories;
    } catch (failure) {
      if (controller !== current || isAbort(failure)) return;
      error.value = errorMessage(failure);
    } finally {
      if (controller === current) {
        loading.value = false;
        controller = null;
      }
    }
  }

  async function change<T>(run: () => Promise<T>, apply: (answer: T) => void): Promise<void> {
    busy.value = true;
    try {
      apply(await run());
    } finally {
      busy.value = false;
    }
  }

  const create = (input: { scope: MemoryScope; contentMd: string; tags: readonly string[] }) =>
    change(
      () => createMemory(target(), input),
      (memory) => (memories.value = upsertMemory(memories.value, memory)),
    );

  const update = (id: string, input: { contentMd: string; tags: readonly string[] }) =>
    change(
      () => updateMemory(target(), id, input),
      (memory) => (memories.value = upsertMemory(memories.value, memory)),
    );

  const setStatus = (ids: readonly string[], status: MemoryStatus) =>
    change(
      () => setMemoryStatus(target(), ids, status),
      (list) => (memories.value = list),
    );

  const remove = (ids: readonly string[]) =>
    change(
      () => deleteMemories(target(), ids),
      (list) => (memories.value = list),
    );

  onScopeDispose(() => controller?.abort());

  return { context, memories, counts, loading, error, busy, load, create, update, setStatus, remove };
}

export type MemoryInspectorState = ReturnType<typeof useMemoryInspector>;

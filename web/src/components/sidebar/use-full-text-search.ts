/**
 * The sidebar's full-text search as a composable: the query is searched ~150 ms after the last keystroke; a newer
 * query aborts the request of an older one (its answer, were it to arrive, is dropped: only the current
 * request's answer is applied); while the server says its index is still being built, the same query is asked
 * again every `pollMs` so the hits fill in. A query with nothing to search (no letter or digit) sends nothing.
 * Everything stops when the owning scope is disposed.
 */
import { onScopeDispose, ref, watch, type Ref } from "vue";
import { errorMessage, isAbort } from "../../api/http.ts";
import { searchMessages, type SearchAnswer, type SearchOptions } from "../../api/search.ts";
import { searchableQuery } from "./search-results.ts";

export interface FullTextSearchOptions {
  readonly debounceMs?: number;
  readonly pollMs?: number;
  /** Whether to search at all (the backend's capability). */
  readonly enabled?: () => boolean;
  readonly search?: (q: string, options: SearchOptions) => Promise<SearchAnswer>;
}

export interface FullTextSearch {
  /** The answer to the current query (null: none yet, or nothing to search). */
  readonly answer: Ref<SearchAnswer | null>;
  /** A request for the current query is under way. */
  readonly loading: Ref<boolean>;
  /** Why the last request failed ("" when it did not). */
  readonly error: Ref<string>;
}

export function useFullTextSearch(query: Ref<string>, options: FullTextSearchOptions = {}): FullTextSearch {
  const debounceMs = options.debounceMs ?? 150;
  const pollMs = options.pollMs ?? 1500;
  const search = options.search ?? searchMessages;
  const answer = ref<SearchAnswer | null>(null);
  const loading = ref(false);
  const error = ref("");
  let timer: ReturnType<typeof setTimeout> | null = null;
  let current: AbortController | null = null;

  function stop(): void {
    if (timer !== null) clearTimeout(timer);
    timer = null;
    current?.abort();
    current = null;
  }

  function run(text: string): void {
    current?.abort();
    const controller = new AbortController();
    current = controller;
    loading.value = true;
    search(text, { signal: controller.signal }).then(
      (result) => {
        if (current !== controller) return;
        answer.value = result;
        error.value = "";
        loading.value = false;
        if (!result.status.ready) timer = setTimeout(() => run(text), pollMs);
      },
      (problem: unknown) => {
        if (current !== controller || isAbort(problem)) return;
        error.value = errorMessage(problem);
        loading.value = false;
      },
    );
  }

  watch(
    query,
    (value) => {
      stop();
      const text = options.enabled?.() === false ? null : searchableQuery(value);
      if (text === null) {
        answer.value = null;
        loading.value = false;
        error.value = "";
        return;
      }
      loading.value = true;
      timer = setTimeout(() => run(text), debounceMs);
    },
    { immediate: true },
  );
  onScopeDispose(stop);

  return { answer, loading, error };
}

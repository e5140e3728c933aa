import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { effectScope, nextTick, ref } from "vue";
import { ApiError } from "../../api/http.ts";
import type { SearchAnswer, SearchOptions } from "../../api/search.ts";
import { searchAnswer, searchHit } from "./search.fixture.ts";
import { useFullTextSearch } from "./use-full-text-search.ts";

interface Call {
  q: string;
  signal: AbortSignal | undefined;
  resolve(answer: SearchAnswer): void;
  reject(error: unknown): void;
}

function fakeSearch() {
  const calls: Call[] = [];
  const search = (q: string, options: SearchOptions): Promise<SearchAnswer> =>
    new Promise((resolve, reject) => {
      calls.push({ q, signal: options.signal, resolve, reject });
    });
  return { calls, search };
}

async function settle(): Promise<void> {
  await nextTick();
  await Promise.resolve();
  await Promise.resolve();
}

describe("useFullTextSearch", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  function start(enabled = true) {
    const query = ref("");
    const fake = fakeSearch();
    const scope = effectScope();
    const state = scope.run(() => useFullTextSearch(query, { search: fake.search, enabled: () => enabled }))!;
    return { query, fake, scope, state };
  }

  it("searches 150 ms after the last keystroke, once", async () => {
    const { query, fake, state } = start();
    query.value = "pa";
    await settle();
    vi.advanceTimersByTime(100);
    query.value = "par";
    await settle();
    vi.advanceTimersByTime(149);
    expect(fake.calls).toHaveLength(0);
    expect(state.loading.value).toBe(true);
    vi.advanceTimersByTime(1);
    expect(fake.calls.map((c) => c.q)).toEqual(["par"]);
    fake.calls[0]?.resolve(searchAnswer([searchHit()]));
    await settle();
    expect(state.answer.value?.results).toHaveLength(1);
    expect(state.loading.value).toBe(false);
  });

  it("aborts the older request and drops its answer when a newer query is typed", async () => {
    const { query, fake, state } = start();
    query.value = "parser";
    await settle();
    vi.advanceTimersByTime(150);
    query.value = "parsers";
    await settle();
    expect(fake.calls[0]?.signal?.aborted).toBe(true);
    vi.advanceTimersByTime(150);
    fake.calls[1]?.resolve(searchAnswer([searchHit({ entryId: "new" })]));
    fake.calls[0]?.resolve(searchAnswer([searchHit({ entryId: "old" })]));
    await settle();
    expect(state.answer.value?.results.map((r) => r.entryId)).toEqual(["new"]);
  });

  it("sends nothing for a query without letters or digits, or when the backend has no search", async () => {
    const { query, fake, state } = start();
    query.value = " -- ?? ";
    await settle();
    vi.advanceTimersByTime(500);
    expect(fake.calls).toHaveLength(0);
    expect(state.answer.value).toBeNull();
    expect(state.loading.value).toBe(false);

    const off = start(false);
    off.query.value = "parser";
    await settle();
    vi.advanceTimersByTime(500);
    expect(off.fake.calls).toHaveLength(0);
  });

  it("asks again while the index is being built, and stops when it is ready or the scope ends", async () => {
    const { query, fake, scope, state } = start();
    query.value = "parser";
    await settle();
    vi.advanceTimersByTime(150);
    fake.calls[0]?.resolve(searchAnswer([], { indexed: 3, total: 10, ready: false }));
    await settle();
    expect(state.answer.value?.status.ready).toBe(false);
    vi.advanceTimersByTime(1500);
    expect(fake.calls).toHaveLength(2);
    fake.calls[1]?.resolve(searchAnswer([searchHit()]));
    await settle();
    vi.advanceTimersByTime(5000);
    expect(fake.calls).toHaveLength(2);
    query.value = "other";
    await settle();
    scope.stop();
    vi.advanceTimersByTime(5000);
    expect(fake.calls).toHaveLength(2);
  });

  it("says why a request failed, and clears the query's state when it is emptied", async () => {
    const { query, fake, state } = start();
    query.value = "parser";
    await settle();
    vi.advanceTimersByTime(150);
    fake.calls[0]?.reject(new ApiError(500, "Internal server error"));
    await settle();
    expect(state.error.value).toBe("Internal server error");
    query.value = "";
    await settle();
    expect(state.error.value).toBe("");
    expect(state.answer.value).toBeNull();
  });
});

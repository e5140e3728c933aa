/**
 * The session-traces cache's keeping rules: watch counts (a session stays watched until its last watcher stops,
 * a double stop counts once), writes make an entry the newest, and the size limit drops the oldest unwatched
 * sessions first and never a watched one.
 */
import { describe, expect, it } from "vitest";
import { createSessionWatchers, SESSION_CACHE_SIZE, trimSessionCache, withSessionEntry } from "./session-traces-cache.ts";

/** A cache of sessions s0…s{count-1}, written in that order (s0 oldest); each entry is its own id. */
function cacheOf(count: number): Record<string, string> {
  let cache: Record<string, string> = {};
  for (let i = 0; i < count; i++) cache = withSessionEntry(cache, `s${i}`, `s${i}`);
  return cache;
}

describe("session watchers", () => {
  it("a session stays watched until every watcher stopped; a stop called twice counts once", () => {
    const watchers = createSessionWatchers();
    expect(watchers.watched("s1")).toBe(false);
    const first = watchers.watch("s1");
    const second = watchers.watch("s1");
    const other = watchers.watch("s2");
    first();
    first();
    expect(watchers.watched("s1")).toBe(true);
    second();
    expect(watchers.watched("s1")).toBe(false);
    expect(watchers.watched("s2")).toBe(true);
    other();
    expect(watchers.watched("s2")).toBe(false);
  });
});

describe("session traces cache", () => {
  it("writing an entry makes it the newest; removing one keeps the others' order", () => {
    let cache = cacheOf(3);
    cache = withSessionEntry(cache, "s0", "s0 again");
    expect(Object.entries(cache)).toEqual([
      ["s1", "s1"],
      ["s2", "s2"],
      ["s0", "s0 again"],
    ]);
    expect(Object.keys(withSessionEntry(cache, "s2", null))).toEqual(["s1", "s0"]);
  });

  it("keeps up to the size limit as it is", () => {
    const cache = cacheOf(SESSION_CACHE_SIZE);
    expect(trimSessionCache(cache, () => false)).toBe(cache);
  });

  it("beyond the limit drops the oldest unwatched sessions, never a watched one", () => {
    const cache = cacheOf(SESSION_CACHE_SIZE + 3);
    const watched = new Set(["s0", "s2"]);
    const trimmed = trimSessionCache(cache, (id) => watched.has(id));
    expect(Object.keys(trimmed)).toHaveLength(SESSION_CACHE_SIZE);
    expect(Object.keys(trimmed).slice(0, 3)).toEqual(["s0", "s2", "s5"]);
    expect(trimmed["s1"]).toBeUndefined();
    expect(trimmed["s3"]).toBeUndefined();
    expect(trimmed["s4"]).toBeUndefined();
    expect(trimmed[`s${SESSION_CACHE_SIZE + 2}`]).toBe(`s${SESSION_CACHE_SIZE + 2}`);
  });

  it("when every session is watched nothing goes, however many there are", () => {
    const cache = cacheOf(4);
    expect(trimSessionCache(cache, () => true, 2)).toBe(cache);
    expect(Object.keys(trimSessionCache(cache, (id) => id !== "s3", 2))).toEqual(["s0", "s1", "s2"]);
  });
});

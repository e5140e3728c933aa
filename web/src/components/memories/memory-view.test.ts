import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { memoryCounts } from "../../../../domain/memories/memory-rules.ts";
import { MEMORY_SCOPES, MEMORY_STATUSES } from "../../../../domain/memories/memory-types.ts";
import {
  defaultScope,
  filterMemories,
  matchesSearch,
  memoryDates,
  parseTags,
  scopeCounts,
  scopeLabel,
  selectedShown,
  statusCounts,
  tagsText,
  toggleSelected,
  upsertMemory,
  writableScopes,
  type ScopeFilter,
} from "./memory-view.ts";
import { memory } from "./memories.fixture.ts";

const memoryArb = fc
  .record({
    id: fc.string({ minLength: 1, maxLength: 4 }),
    scope: fc.constantFrom(...MEMORY_SCOPES),
    status: fc.constantFrom(...MEMORY_STATUSES),
    updatedAt: fc.integer({ min: 0, max: 9 }),
  })
  .map((fields) => memory(fields));
const listArb = fc.uniqueArray(memoryArb, { selector: (m) => m.id, maxLength: 20 });

describe("filter and counts", () => {
  it("the count on each scope and status button equals the records the filter then lists", () => {
    fc.assert(
      fc.property(
        listArb,
        fc.constantFrom<ScopeFilter>("all", ...MEMORY_SCOPES),
        fc.constantFrom(...MEMORY_STATUSES),
        (list, scope, status) => {
          const counts = memoryCounts(list);
          const listed = filterMemories(list, { scope, status, query: "" });
          expect(scopeCounts(counts, status)[scope]).toBe(listed.length);
          expect(statusCounts(counts, scope)[status]).toBe(listed.length);
        },
      ),
    );
  });

  it("searches content, reason, tags and source, every word", () => {
    const m = memory({ contentMd: "Use **pnpm** here", reasonMd: "CI broke", tags: ["build"], source: "agent" });
    expect(matchesSearch(m, ["pnpm", "ci"])).toBe(true);
    expect(matchesSearch(m, ["build", "agent"])).toBe(true);
    expect(matchesSearch(m, ["pnpm", "yarn"])).toBe(false);
    const list = [m, memory({ id: "m2", contentMd: "Other" })];
    expect(filterMemories(list, { scope: "all", status: "active", query: "  PNPM  " }).map((x) => x.id)).toEqual([m.id]);
    expect(filterMemories(list, { scope: "all", status: "archived", query: "" })).toEqual([]);
  });
});

describe("scopes", () => {
  it("offers the session scope only with a session, and starts where the list stands", () => {
    expect(writableScopes(null)).toEqual(["global", "project"]);
    expect(writableScopes({ sessionAvailable: true })).toEqual(["global", "project", "session"]);
    expect(defaultScope("all", null)).toBe("project");
    expect(defaultScope("global", null)).toBe("global");
    expect(defaultScope("session", { sessionAvailable: false })).toBe("project");
    expect(defaultScope("session", { sessionAvailable: true })).toBe("session");
    expect(scopeLabel({ scope: "project", projectName: "app" })).toBe("Project · app");
    expect(scopeLabel({ scope: "global", projectName: null })).toBe("Global");
  });
});

describe("tags, selection and the list", () => {
  it("reads comma-separated tags and writes them back", () => {
    expect(parseTags(" node, ,ci setup ,")).toEqual(["node", "ci setup"]);
    expect(tagsText(["a", "b"])).toBe("a, b");
    expect(parseTags(tagsText(["a", "b c"]))).toEqual(["a", "b c"]);
  });

  it("toggles a selection and keeps only the ids still listed", () => {
    expect(toggleSelected(["a"], "b")).toEqual(["a", "b"]);
    expect(toggleSelected(["a", "b"], "a")).toEqual(["b"]);
    expect(selectedShown(["a", "b", "c"], [{ id: "c" }, { id: "a" }])).toEqual(["a", "c"]);
  });

  it("adds or replaces a record and keeps the newest update first", () => {
    const a = memory({ id: "a", updatedAt: 1 });
    const b = memory({ id: "b", updatedAt: 2 });
    expect(upsertMemory([b, a], memory({ id: "c", updatedAt: 3 })).map((m) => m.id)).toEqual(["c", "b", "a"]);
    expect(upsertMemory([b, a], { ...a, updatedAt: 5 }).map((m) => m.id)).toEqual(["a", "b"]);
  });

  it("says the dates in words and in full", () => {
    const now = new Date(2026, 2, 12, 15, 0).getTime();
    const created = new Date(2026, 2, 10, 9, 5).getTime();
    const updated = new Date(2026, 2, 12, 14, 30).getTime();
    const dates = memoryDates(memory({ createdAt: created, updatedAt: updated, archivedAt: updated }), now, "en-GB");
    expect(dates.text).toBe("updated 14:30 · created 10 Mar 09:05 · archived 14:30");
    expect(dates.title).toContain("Created: ");
    expect(dates.title).toContain("Archived: ");
    expect(dates.title).not.toContain("Last used");
    expect(memoryDates(memory({ createdAt: created, updatedAt: created }), now, "en-GB").text).toBe("updated 10 Mar 09:05");
  });
});

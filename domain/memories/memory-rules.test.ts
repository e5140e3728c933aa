import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  checkMemoryContent,
  checkMemoryIds,
  checkMemoryTags,
  checkScopeIn,
  compareMemories,
  editedMemory,
  isVisibleIn,
  MEMORY_CONTENT_MAX,
  MEMORY_IDS_MAX,
  MEMORY_TAG_MAX,
  MEMORY_TAGS_MAX,
  memoriesView,
  memoryCounts,
  missingIds,
  newUserMemory,
  normaliseTag,
  visibleMemories,
  withStatus,
} from "./memory-rules.ts";
import { MEMORY_SCOPES, MEMORY_SOURCES, MEMORY_STATUSES, type Memory, type MemoryContext } from "./memory-types.ts";

const context = (overrides: Partial<MemoryContext> = {}): MemoryContext => ({
  cwd: "/work/app/src",
  projectId: "p1",
  projectName: "app",
  projectRoot: "/work/app",
  sessionAvailable: true,
  sessionFile: "/agent/sessions/s1.jsonl",
  sessionId: "s1",
  ...overrides,
});

const noSession = context({ sessionAvailable: false, sessionFile: null, sessionId: null });

function memory(overrides: Partial<Memory> = {}): Memory {
  return {
    id: "m1",
    scope: "global",
    projectId: null,
    projectRoot: null,
    projectName: null,
    sessionId: null,
    sessionFile: null,
    cwd: "/work/app",
    contentMd: "Use pnpm.",
    reasonMd: "",
    tags: [],
    status: "active",
    source: "user",
    createdAt: 1,
    updatedAt: 1,
    archivedAt: null,
    lastAccessedAt: null,
    ...overrides,
  };
}

/** Records over two projects and two sessions, any scope, status and times. */
const memoryArb = fc
  .record({
    id: fc.string({ minLength: 1, maxLength: 6 }),
    scope: fc.constantFrom(...MEMORY_SCOPES),
    project: fc.constantFrom("p1", "p2"),
    session: fc.constantFrom("s1", "s2"),
    status: fc.constantFrom(...MEMORY_STATUSES),
    source: fc.constantFrom(...MEMORY_SOURCES),
    createdAt: fc.integer({ min: 0, max: 20 }),
    updatedAt: fc.integer({ min: 0, max: 20 }),
  })
  .map(({ id, scope, project, session, status, source, createdAt, updatedAt }) =>
    memory({
      id,
      scope,
      status,
      source,
      createdAt,
      updatedAt,
      projectId: scope === "global" ? null : project,
      sessionId: scope === "session" ? session : null,
      sessionFile: scope === "session" ? `/agent/sessions/${session}.jsonl` : null,
    }),
  );
const memoriesArb = fc.uniqueArray(memoryArb, { selector: (m) => m.id, maxLength: 30 });
const contextArb = fc.constantFrom(
  context(),
  noSession,
  context({ projectId: "p2", sessionFile: "/agent/sessions/s2.jsonl", sessionId: "s2" }),
);

describe("content", () => {
  it("normalises line ends, leading blank lines and trailing white space", () => {
    expect(checkMemoryContent("\r\n  \n# Title\r\n\r\n    code\r\n  \t")).toEqual({ ok: true, value: "# Title\n\n    code" });
    expect(checkMemoryContent("  keep leading spaces")).toEqual({ ok: true, value: "  keep leading spaces" });
  });

  it("refuses empty and too long content", () => {
    expect(checkMemoryContent(" \n\t ")).toEqual({ ok: false, error: "contentMd must not be empty" });
    expect(checkMemoryContent("x".repeat(MEMORY_CONTENT_MAX)).ok).toBe(true);
    expect(checkMemoryContent("😀".repeat(MEMORY_CONTENT_MAX)).ok).toBe(true);
    expect(checkMemoryContent("x".repeat(MEMORY_CONTENT_MAX + 1))).toEqual({
      ok: false,
      error: `contentMd must be at most ${MEMORY_CONTENT_MAX} characters`,
    });
  });

  it("normalising twice changes nothing", () => {
    fc.assert(
      fc.property(fc.string(), (raw) => {
        const first = checkMemoryContent(raw);
        if (first.ok) expect(checkMemoryContent(first.value)).toEqual(first);
      }),
    );
  });
});

describe("tags", () => {
  it("trims, drops #, joins words with -, lower-cases, drops empty and duplicate tags", () => {
    expect(normaliseTag("  #Build Tools ")).toBe("build-tools");
    expect(checkMemoryTags(["Node", " node", "#node", "", "  ", "CI  setup", "ci-setup"])).toEqual({
      ok: true,
      value: ["node", "ci-setup"],
    });
    expect(checkMemoryTags(undefined)).toEqual({ ok: true, value: [] });
    expect(checkMemoryTags(null)).toEqual({ ok: true, value: [] });
  });

  it("refuses too many and too long tags", () => {
    const many = Array.from({ length: MEMORY_TAGS_MAX + 1 }, (_, i) => `t${i}`);
    expect(checkMemoryTags(many.slice(0, MEMORY_TAGS_MAX)).ok).toBe(true);
    expect(checkMemoryTags(many)).toEqual({ ok: false, error: `a memory can have at most ${MEMORY_TAGS_MAX} tags` });
    expect(checkMemoryTags(["x".repeat(MEMORY_TAG_MAX + 1)])).toEqual({
      ok: false,
      error: `every tag must be at most ${MEMORY_TAG_MAX} characters`,
    });
  });

  it("normalising twice changes nothing, and the result has no duplicates or empty tags", () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 12 }), { maxLength: 12 }), (raw) => {
        const first = checkMemoryTags(raw);
        if (!first.ok) return;
        expect(checkMemoryTags(first.value)).toEqual(first);
        expect(new Set(first.value).size).toBe(first.value.length);
        expect(first.value.every((tag) => tag !== "" && tag === tag.toLowerCase() && !/\s/.test(tag))).toBe(true);
      }),
    );
  });
});

describe("ids", () => {
  it("needs 1 to 500 non-empty ids and drops duplicates", () => {
    expect(checkMemoryIds([" a", "b", "a"])).toEqual({ ok: true, value: ["a", "b"] });
    expect(checkMemoryIds([])).toEqual({ ok: false, error: "ids must name at least one memory" });
    expect(checkMemoryIds(["a", " "])).toEqual({ ok: false, error: "ids must be non-empty strings of at most 128 characters" });
    expect(checkMemoryIds(Array.from({ length: MEMORY_IDS_MAX + 1 }, (_, i) => `m${i}`))).toEqual({
      ok: false,
      error: `ids can name at most ${MEMORY_IDS_MAX} memories per request`,
    });
  });

  it("names the ids no visible record has", () => {
    expect(missingIds(["a", "b", "c"], [{ id: "b" }])).toEqual(["a", "c"]);
  });
});

describe("visibility", () => {
  it("shows global memories everywhere, project memories in their project, session memories with their session", () => {
    const global = memory({ scope: "global" });
    const project = memory({ scope: "project", projectId: "p1" });
    const otherProject = memory({ scope: "project", projectId: "p2" });
    const session = memory({ scope: "session", projectId: "p1", sessionFile: "/agent/sessions/s1.jsonl", sessionId: "s1" });
    const otherSession = memory({ scope: "session", projectId: "p1", sessionFile: "/agent/sessions/s2.jsonl", sessionId: "s2" });
    expect([global, project, otherProject, session, otherSession].map((m) => isVisibleIn(m, context()))).toEqual([
      true,
      true,
      false,
      true,
      false,
    ]);
    expect([global, project, otherProject, session, otherSession].map((m) => isVisibleIn(m, noSession))).toEqual([
      true,
      true,
      false,
      false,
      false,
    ]);
    // The same session by id when its file moved, or by file when the id is unknown.
    expect(isVisibleIn(memory({ scope: "session", projectId: "p1", sessionFile: "/moved.jsonl", sessionId: "s1" }), context())).toBe(true);
    expect(isVisibleIn(session, context({ sessionId: null }))).toBe(true);
  });

  it("never shows a session memory without a session, nor another project's memory", () => {
    fc.assert(
      fc.property(memoriesArb, (memories) => {
        const seen = visibleMemories(memories, noSession);
        expect(seen.some((m) => m.scope === "session")).toBe(false);
        expect(seen.some((m) => m.scope === "project" && m.projectId !== "p1")).toBe(false);
        expect(seen.filter((m) => m.scope === "global")).toHaveLength(memories.filter((m) => m.scope === "global").length);
      }),
    );
  });
});

describe("order and counts", () => {
  it("lists newest update first, then newest creation, then id, whatever the input order", () => {
    fc.assert(
      fc.property(memoriesArb, fc.integer(), contextArb, (memories, seed, ctx) => {
        const shuffled = [...memories].sort((a, b) => ((a.id.charCodeAt(0) * seed) % 7) - ((b.id.charCodeAt(0) * seed) % 7));
        const listed = visibleMemories(shuffled, ctx);
        expect(listed).toEqual(visibleMemories(memories, ctx));
        for (let i = 1; i < listed.length; i++) expect(compareMemories(listed[i - 1]!, listed[i]!)).toBeLessThan(0);
      }),
    );
  });

  it("counts equal the listed records by scope and status", () => {
    fc.assert(
      fc.property(memoriesArb, contextArb, (memories, ctx) => {
        const view = memoriesView(ctx, memories);
        expect(view.counts.active + view.counts.archived).toBe(view.memories.length);
        for (const status of MEMORY_STATUSES) {
          expect(view.counts[status]).toBe(view.memories.filter((m) => m.status === status).length);
          for (const scope of MEMORY_SCOPES) {
            expect(view.counts.scopes[scope][status]).toBe(view.memories.filter((m) => m.scope === scope && m.status === status).length);
          }
        }
      }),
    );
  });

  it("counts nothing in an empty list", () => {
    expect(memoryCounts([])).toEqual({
      active: 0,
      archived: 0,
      scopes: { global: { active: 0, archived: 0 }, project: { active: 0, archived: 0 }, session: { active: 0, archived: 0 } },
    });
  });
});

describe("writes", () => {
  it("a person's memory is active, from the user, without a reason, keyed by its scope", () => {
    const base = { id: "n1", now: 5, contentMd: "x", tags: ["a"], context: context() };
    expect(newUserMemory({ ...base, scope: "global" })).toMatchObject({
      scope: "global",
      projectId: null,
      sessionFile: null,
      cwd: "/work/app/src",
      status: "active",
      source: "user",
      reasonMd: "",
      createdAt: 5,
      updatedAt: 5,
      archivedAt: null,
      lastAccessedAt: null,
    });
    expect(newUserMemory({ ...base, scope: "project" })).toMatchObject({ projectId: "p1", projectRoot: "/work/app", sessionFile: null });
    expect(newUserMemory({ ...base, scope: "session" })).toMatchObject({
      projectId: "p1",
      sessionFile: "/agent/sessions/s1.jsonl",
      sessionId: "s1",
    });
    expect(checkScopeIn("session", noSession)).toEqual({ ok: false, error: "sessionPath is required for the session scope" });
    expect(checkScopeIn("project", noSession)).toEqual({ ok: true, value: "project" });
  });

  it("an edit changes content, tags and the update time only", () => {
    const before = memory({
      scope: "project",
      projectId: "p1",
      source: "agent",
      reasonMd: "why",
      status: "archived",
      archivedAt: 3,
      tags: ["a"],
    });
    expect(editedMemory(before, { contentMd: "new" }, 9)).toEqual({ ...before, contentMd: "new", updatedAt: 9 });
    expect(editedMemory(before, { contentMd: "new", tags: [] }, 9)).toEqual({ ...before, contentMd: "new", tags: [], updatedAt: 9 });
  });

  it("archiving stamps archivedAt once, restoring clears it, the update time stays", () => {
    const active = memory({ updatedAt: 4 });
    const archived = withStatus(active, "archived", 10);
    expect(archived).toEqual({ ...active, status: "archived", archivedAt: 10 });
    expect(withStatus(archived, "archived", 20)).toBe(archived);
    expect(withStatus(archived, "active", 30)).toEqual({ ...active, archivedAt: null });
  });
});

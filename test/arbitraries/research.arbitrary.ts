/**
 * fast-check arbitraries and entry builders for research events (leyline-research custom entries).
 * Pools of URLs, paths and thread ids are small on purpose, so that generated runs hit duplicates,
 * merges, id collisions and cross-references.
 */
import fc from "fast-check";
import type { SessionEntry } from "../../domain/session-log.ts";
import { researchEventEntryData } from "../../domain/research/research-event.ts";
import {
  RESEARCH_CUSTOM_TYPE,
  RESEARCH_PHASES,
  RESEARCH_SOURCE_STATUSES,
  RESEARCH_THREAD_STATUSES,
  type ResearchEvent,
  type ResearchPlanThread,
  type ResearchSourceInput,
  type ResearchThreadUpdate,
} from "../../domain/research/research-types.ts";

export const SESSION_IDS = ["sess-a", "sess-b", "sess-c"] as const;
export const THREAD_IDS = ["T1", "T2", "T3", "T4"] as const;
const HOSTS = ["https://example.com", "http://example.com", "https://docs.example.org"] as const;
const URL_PATHS = ["", "/", "/a", "/a/", "/a/b", "/a//", "/b?x=1", "/b/?x=1", "/b?x=2"] as const;
const FILE_PATHS = ["docs/a.md", "./docs/a.md", "src/b.ts", "./src/b.ts", "notes.txt"] as const;

/** Short text, sometimes with surrounding spaces (the fold trims). */
export const arbText = fc.oneof(fc.constantFrom("", "alpha", "beta gamma", "  padded  ", "Δ unicode"), fc.string({ maxLength: 12 }));

/** Positive event times (ms) in a realistic range. */
export const arbTime = fc.integer({ min: 1_600_000_000_000, max: 1_900_000_000_000 });

/** An http(s) URL from a small pool, sometimes with a fragment. */
export const arbSourceUrl = fc
  .tuple(fc.constantFrom(...HOSTS), fc.constantFrom(...URL_PATHS), fc.constantFrom("", "#frag", "#other"))
  .map(([host, path, hash]) => `${host}${path}${hash}`);

export const arbSourcePath = fc.constantFrom(...FILE_PATHS);

/** A source input as a worker or the lead sends it; `valid: false` may omit both url and path. */
export function arbSourceInput(options: { valid?: boolean } = {}): fc.Arbitrary<ResearchSourceInput> {
  const location = fc.oneof(
    arbSourceUrl.map((url) => ({ url })),
    arbSourcePath.map((path) => ({ path })),
    fc.tuple(arbSourceUrl, arbSourcePath).map(([url, path]) => ({ url, path })),
    ...(options.valid === false ? [fc.constantFrom({}, { url: "ftp://example.com/x" }, { path: "  " }, { url: "not a url" })] : []),
  );
  return fc
    .record(
      {
        id: fc.integer({ min: 1, max: 70 }),
        title: arbText,
        publisher: arbText,
        publishedAt: fc.constantFrom("", "2024-01-02"),
        kind: fc.constantFrom("", "web", "paper", "file"),
        status: fc.constantFrom(...RESEARCH_SOURCE_STATUSES),
        threadId: fc.constantFrom(...THREAD_IDS),
        threadIds: fc.array(fc.constantFrom(...THREAD_IDS), { maxLength: 2 }),
        claim: arbText,
        evidence: arbText,
        exclusionReason: arbText,
      },
      { requiredKeys: [] },
    )
    .chain((fields) => location.map((loc) => ({ ...fields, ...loc })));
}

export const arbPlanThread: fc.Arbitrary<ResearchPlanThread> = fc.record({
  id: fc.constantFrom(...THREAD_IDS, ""),
  title: arbText,
  task: arbText,
});

export const arbThreadUpdate: fc.Arbitrary<ResearchThreadUpdate> = fc
  .record(
    {
      title: arbText,
      task: arbText,
      status: fc.constantFrom(...RESEARCH_THREAD_STATUSES),
      summary: arbText,
      sourceIds: fc.array(fc.integer({ min: 1, max: 70 }), { maxLength: 4 }),
      childSession: fc.option(fc.record({ id: fc.constantFrom("", "child-1"), path: fc.constantFrom("", "/s/c.jsonl"), cwd: arbText }), {
        nil: null,
      }),
      error: arbText,
      startedAt: arbTime,
      completedAt: arbTime,
    },
    { requiredKeys: [] },
  )
  .chain((fields) => fc.constantFrom(...THREAD_IDS).map((id) => ({ id, ...fields })));

const arbCitedIds = fc.array(fc.integer({ min: 1, max: 70 }), { maxLength: 5 });

/** Any non-marker research event of `sessionId` (optionally with an `updatedAt`). */
export function arbResearchUpdate(sessionId: string): fc.Arbitrary<ResearchEvent> {
  const time = fc.option(arbTime, { nil: undefined });
  const withTime = <E extends ResearchEvent>(arb: fc.Arbitrary<E>): fc.Arbitrary<ResearchEvent> =>
    fc.tuple(arb, time).map(([event, updatedAt]) => (updatedAt === undefined ? event : { ...event, updatedAt }));
  return fc.oneof(
    withTime(arbText.map((objective) => ({ kind: "objective" as const, sessionId, objective }))),
    withTime(
      fc
        .record({ strategy: arbText, threads: fc.array(arbPlanThread, { maxLength: 5 }) })
        .map((f) => ({ kind: "plan" as const, sessionId, ...f })),
    ),
    withTime(
      fc
        .record(
          {
            phase: fc.constantFrom(...RESEARCH_PHASES),
            status: fc.constant("error" as const),
            note: arbText,
            title: arbText,
            citedSourceIds: arbCitedIds,
          },
          { requiredKeys: ["phase"] },
        )
        .map((f) => ({ kind: "phase" as const, sessionId, ...f })),
    ),
    { weight: 3, arbitrary: withTime(arbThreadUpdate.map((thread) => ({ kind: "thread" as const, sessionId, thread }))) },
    { weight: 4, arbitrary: withTime(arbSourceInput().map((source) => ({ kind: "source" as const, sessionId, source }))) },
    withTime(
      fc
        .record(
          { reportEntryId: fc.constantFrom("r1", "r2"), title: arbText, citedSourceIds: arbCitedIds },
          { requiredKeys: ["reportEntryId"] },
        )
        .map((f) => ({ kind: "report" as const, sessionId, ...f })),
    ),
    withTime(arbText.map((message) => ({ kind: "error" as const, sessionId, message }))),
  );
}

/** A marker of `sessionId`, optionally with an objective and a time. */
export function arbMarker(sessionId: string): fc.Arbitrary<ResearchEvent> {
  return fc
    .record({ objective: arbText, updatedAt: arbTime }, { requiredKeys: [] })
    .map((f) => ({ kind: "session" as const, sessionId, ...f }));
}

/** Any research event of any of the pooled session ids. */
export const arbResearchEvent: fc.Arbitrary<ResearchEvent> = fc
  .constantFrom(...SESSION_IDS)
  .chain((id) => fc.oneof({ weight: 1, arbitrary: arbMarker(id) }, { weight: 6, arbitrary: arbResearchUpdate(id) }));

/** A run of one session: its marker, then updates. */
export function arbResearchRun(sessionId: string, maxLength = 30): fc.Arbitrary<ResearchEvent[]> {
  return fc
    .tuple(arbMarker(sessionId), fc.array(arbResearchUpdate(sessionId), { maxLength }))
    .map(([marker, updates]) => [marker, ...updates]);
}

// ---------------------------------------------------------------------------------------------------------
// Entry builders
// ---------------------------------------------------------------------------------------------------------

const BASE_TIME = Date.parse("2025-01-01T00:00:00.000Z");

/** Entries with ids e1, e2... chained by parentId, one second apart from 2025-01-01. */
export function toEntries(items: readonly (ResearchEvent | SessionEntry)[], idPrefix = "e"): SessionEntry[] {
  return items.map((item, index) => {
    const id = `${idPrefix}${index + 1}`;
    const parentId = index === 0 ? null : `${idPrefix}${index}`;
    const timestamp = new Date(BASE_TIME + index * 1000).toISOString();
    if (!("type" in item)) return researchEntry(item, id, parentId, timestamp);
    return { ...item, id, parentId, timestamp } as SessionEntry;
  });
}

export function researchEntry(
  event: ResearchEvent,
  id: string,
  parentId: string | null = null,
  timestamp = new Date(BASE_TIME).toISOString(),
): SessionEntry {
  return {
    type: "custom",
    customType: RESEARCH_CUSTOM_TYPE,
    data: researchEventEntryData(event),
    id,
    parentId,
    timestamp,
  };
}

export function userEntry(text: string, id = "u"): SessionEntry {
  return {
    type: "message",
    id,
    parentId: null,
    timestamp: new Date(BASE_TIME).toISOString(),
    message: { role: "user", content: text, timestamp: BASE_TIME },
  };
}

export function assistantEntry(
  text: string,
  id = "a",
  stopReason: "stop" | "toolUse" | "error" | "length" | "aborted" = "stop",
): SessionEntry {
  return {
    type: "message",
    id,
    parentId: null,
    timestamp: new Date(BASE_TIME).toISOString(),
    message: {
      role: "assistant",
      content: [{ type: "text", text }],
      api: "openai-completions",
      provider: "faux",
      model: "faux-1",
      usage: {
        input: 0,
        output: 0,
        cacheRead: 0,
        cacheWrite: 0,
        totalTokens: 0,
        cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
      },
      stopReason,
      timestamp: BASE_TIME,
    },
  };
}

/** Entries the research fold must ignore: other entry types, other custom types, malformed research data. */
export const arbForeignEntry: fc.Arbitrary<SessionEntry> = fc.oneof(
  fc.constant(userEntry("hello")),
  fc.constant(assistantEntry("[1](https://example.com/a)")),
  fc.constant({
    type: "model_change",
    id: "m",
    parentId: null,
    timestamp: new Date(BASE_TIME).toISOString(),
    provider: "faux",
    modelId: "faux-1",
  } as SessionEntry),
  fc
    .constantFrom<unknown>(
      null,
      42,
      "text",
      { version: 2, sessionId: "sess-a", kind: "error", message: "x" },
      { version: 1, kind: "error", message: "no session" },
      { version: 1, sessionId: "sess-a", kind: "mystery" },
      { version: 1, sessionId: "sess-a", kind: "phase", phase: "dance" },
      { version: 1, sessionId: "sess-a", kind: "source", source: { title: "no location" } },
      { version: 1, sessionId: "sess-a", kind: "report" },
      { version: 1, sessionId: "sess-a", kind: "thread", thread: { id: "" } },
    )
    .map(
      (data) =>
        ({
          type: "custom",
          customType: RESEARCH_CUSTOM_TYPE,
          data,
          id: "x",
          parentId: null,
          timestamp: new Date(BASE_TIME).toISOString(),
        }) as SessionEntry,
    ),
  fc.constant({
    type: "custom",
    customType: "goal-state",
    data: { version: 1, sessionId: "sess-a", kind: "error", message: "not research" },
    id: "g",
    parentId: null,
    timestamp: new Date(BASE_TIME).toISOString(),
  } as SessionEntry),
);

/**
 * Laws of the session summary projection, checked on generated session logs with branches:
 * incremental folds equal a rebuild, the research state equals the research fold of the active branch,
 * unknown entry types change nothing, and the file-wide fields match a direct model.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { LogRecord, SessionEntry } from "../domain/session-log.ts";
import { activeBranch, addEntry, emptySessionTree } from "../domain/session-tree.ts";
import { researchStateFromEntries } from "../domain/research/research.fold.ts";
import { RESEARCH_CUSTOM_TYPE } from "../domain/research/research-types.ts";
import { fold, rebuild } from "./projection.ts";
import { sessionSummaryProjection } from "./session-summary.projection.ts";

const SESSION_ID = "own-session";

type Payload =
  | { t: "user"; text: string }
  | { t: "assistant" }
  | { t: "name"; name: string }
  | { t: "unknown" }
  | { t: "research"; sessionId: string; data: Record<string, unknown> };

const researchData = fc.oneof(
  fc.constant({ kind: "session" }),
  fc.record({ kind: fc.constant("objective"), objective: fc.string({ minLength: 1, maxLength: 12 }) }),
  fc.record({
    kind: fc.constant("plan"),
    strategy: fc.string({ maxLength: 8 }),
    threads: fc.uniqueArray(
      fc.record({ id: fc.constantFrom("t1", "t2", "t3"), title: fc.string({ maxLength: 5 }), task: fc.string({ maxLength: 5 }) }),
      { selector: (t) => t.id, maxLength: 3 },
    ),
  }),
  fc.record({ kind: fc.constant("phase"), phase: fc.constantFrom("plan", "gather", "synthesize", "report") }),
  fc.record({
    kind: fc.constant("source"),
    source: fc.record({
      url: fc.constantFrom("https://a.example/x", "https://b.example/", "https://a.example/x/"),
      title: fc.string({ maxLength: 5 }),
    }),
  }),
  fc.record({ kind: fc.constant("error"), message: fc.string({ minLength: 1, maxLength: 8 }) }),
);

const payload: fc.Arbitrary<Payload> = fc.oneof(
  fc.record({ t: fc.constant("user" as const), text: fc.string({ maxLength: 20 }) }),
  fc.constant({ t: "assistant" as const }),
  fc.record({ t: fc.constant("name" as const), name: fc.constantFrom("", " ", "alpha", "beta ") }),
  fc.constant({ t: "unknown" as const }),
  fc.record({
    t: fc.constant("research" as const),
    sessionId: fc.constantFrom(SESSION_ID, SESSION_ID, SESSION_ID, "foreign"),
    data: researchData,
  }),
);

/** Each step appends an entry whose parent is the current leaf, or (branching) an earlier entry. */
const step = fc.record({ payload, branchTo: fc.option(fc.nat(), { freq: 4 }) });

function buildEntries(steps: readonly { payload: Payload; branchTo: number | null }[], withUnknown: boolean): SessionEntry[] {
  const entries: SessionEntry[] = [];
  steps.forEach(({ payload: p, branchTo }, i) => {
    if (p.t === "unknown" && !withUnknown) return;
    const parentId =
      entries.length === 0
        ? null
        : branchTo === null
          ? (entries[entries.length - 1] as SessionEntry).id
          : (entries[branchTo % entries.length] as SessionEntry).id;
    const base = { id: `e${i}`, parentId, timestamp: new Date(1_700_000_000_000 + i * 1000).toISOString() };
    const fields: Record<string, unknown> =
      p.t === "user"
        ? { type: "message", message: { role: "user", content: [{ type: "text", text: p.text }], timestamp: 1_700_000_000_000 + i } }
        : p.t === "assistant"
          ? { type: "message", message: { role: "assistant", content: [{ type: "text", text: "ok" }], timestamp: 1_700_000_000_000 + i } }
          : p.t === "name"
            ? { type: "session_info", name: p.name }
            : p.t === "unknown"
              ? { type: "future_type", blob: i }
              : { type: "custom", customType: RESEARCH_CUSTOM_TYPE, data: { version: 1, sessionId: p.sessionId, ...p.data } };
    entries.push({ ...base, ...fields } as unknown as SessionEntry);
  });
  return entries;
}

function recordsOf(entries: readonly SessionEntry[]): LogRecord[] {
  return [
    { kind: "header", line: 1, header: { type: "session", version: 3, id: SESSION_ID, timestamp: "2026-01-01T00:00:00.000Z", cwd: "/p" } },
    ...entries.map((entry, i): LogRecord => ({ kind: "entry", line: i + 2, entry })),
  ];
}

const steps = fc.array(step, { maxLength: 40 });

describe("session summary projection laws", () => {
  it("incremental fold equals a full rebuild at every split point", () => {
    fc.assert(
      fc.property(steps, fc.nat(), (s, cutSeed) => {
        const records = recordsOf(buildEntries(s, true));
        const cut = cutSeed % (records.length + 1);
        const whole = rebuild(sessionSummaryProjection, records);
        const first = rebuild(sessionSummaryProjection, records.slice(0, cut));
        expect(fold(sessionSummaryProjection, first, records.slice(cut))).toEqual(whole);
      }),
    );
  });

  it("one record at a time equals one batch", () => {
    fc.assert(
      fc.property(steps, (s) => {
        const records = recordsOf(buildEntries(s, true));
        let state = sessionSummaryProjection.initial();
        for (const record of records) state = fold(sessionSummaryProjection, state, [record]);
        expect(state).toEqual(rebuild(sessionSummaryProjection, records));
      }),
    );
  });

  it("research state equals the research fold of the active branch", () => {
    fc.assert(
      fc.property(steps, (s) => {
        const entries = buildEntries(s, true);
        const tree = emptySessionTree();
        for (const entry of entries) addEntry(tree, entry);
        const expected = researchStateFromEntries(SESSION_ID, activeBranch(tree));
        expect(rebuild(sessionSummaryProjection, recordsOf(entries)).research).toEqual(expected);
      }),
    );
  });

  it("unknown entry types change nothing but the leaf", () => {
    fc.assert(
      fc.property(
        steps.filter((s) => s.every((x) => x.branchTo === null)),
        (s) => {
          const withUnknown = rebuild(sessionSummaryProjection, recordsOf(buildEntries(s, true)));
          const without = rebuild(sessionSummaryProjection, recordsOf(buildEntries(s, false)));
          const strip = (st: typeof withUnknown) => ({
            ...st,
            leafId: null,
            researchParents: {},
            research: st.research && { ...st.research, lastEventId: "" },
          });
          expect(strip(withUnknown)).toEqual(strip(without));
        },
      ),
    );
  });

  it("file-wide fields match a direct model", () => {
    fc.assert(
      fc.property(steps, (s) => {
        const entries = buildEntries(s, true);
        const state = rebuild(sessionSummaryProjection, recordsOf(entries));
        const messages = entries.filter((e) => e.type === "message");
        expect(state.messageCount).toBe(messages.length);
        const names = entries.filter((e) => e.type === "session_info").map((e) => (e as { name?: string }).name?.trim() || null);
        expect(state.name).toBe(names.length ? names[names.length - 1] : null);
        const firstUser = s.filter((x) => x.payload.t === "user" && x.payload.text !== "")[0];
        expect(state.firstUserMessage).toBe(firstUser ? (firstUser.payload as { text: string }).text : null);
      }),
    );
  });
});

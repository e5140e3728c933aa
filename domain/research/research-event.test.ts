import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { arbResearchEvent, arbForeignEntry, researchEntry } from "../../test/arbitraries/research.arbitrary.ts";
import type { SessionEntry } from "../session-log.ts";
import { parseResearchEvent, parseResearchEventData, researchEventEntryData } from "./research-event.ts";
import { RESEARCH_CUSTOM_TYPE } from "./research-types.ts";

function custom(data: unknown, customType = RESEARCH_CUSTOM_TYPE): SessionEntry {
  return { type: "custom", customType, data, id: "e1", parentId: null, timestamp: "2025-01-01T00:00:00.000Z" };
}

describe("parseResearchEvent", () => {
  it("decodes each kind with its fields", () => {
    const s = { version: 1, sessionId: "s1" };
    expect(parseResearchEvent(custom({ ...s, kind: "session", objective: "Why?" }))).toEqual({
      kind: "session",
      sessionId: "s1",
      objective: "Why?",
    });
    expect(parseResearchEvent(custom({ ...s, kind: "plan", strategy: "go", threads: [{ id: "T1", title: "t", task: "k" }, 5] }))).toEqual({
      kind: "plan",
      sessionId: "s1",
      strategy: "go",
      threads: [{ id: "T1", title: "t", task: "k" }],
    });
    expect(
      parseResearchEvent(custom({ ...s, kind: "phase", phase: "report", title: "R", citedSourceIds: [1, "2", 3], status: "error" })),
    ).toEqual({ kind: "phase", sessionId: "s1", phase: "report", status: "error", title: "R", citedSourceIds: [1, 3] });
    expect(
      parseResearchEvent(custom({ ...s, kind: "thread", thread: { id: "T1", status: "done", childSession: null, bogus: 1 } })),
    ).toEqual({
      kind: "thread",
      sessionId: "s1",
      thread: { id: "T1", status: "done", childSession: null },
    });
    expect(parseResearchEvent(custom({ ...s, kind: "source", source: { path: "a.md", id: 2, status: "weird" } }))).toEqual({
      kind: "source",
      sessionId: "s1",
      source: { path: "a.md", id: 2 },
    });
    expect(parseResearchEvent(custom({ ...s, kind: "report", reportEntryId: "m1", citedSourceIds: [2] }))).toEqual({
      kind: "report",
      sessionId: "s1",
      reportEntryId: "m1",
      citedSourceIds: [2],
    });
    expect(parseResearchEvent(custom({ ...s, kind: "error" }))).toEqual({ kind: "error", sessionId: "s1", message: "" });
  });

  it("reads updatedAt as ms or as an ISO string", () => {
    const base = { version: 1, sessionId: "s1", kind: "objective", objective: "o" };
    expect(parseResearchEvent(custom({ ...base, updatedAt: 5 }))?.updatedAt).toBe(5);
    expect(parseResearchEvent(custom({ ...base, updatedAt: "2025-01-01T00:00:01.000Z" }))?.updatedAt).toBe(
      Date.parse("2025-01-01T00:00:01.000Z"),
    );
    expect(parseResearchEvent(custom({ ...base, updatedAt: "soon" }))).not.toHaveProperty("updatedAt");
  });

  it("returns null for anything that is not a valid research event", () => {
    const s = { version: 1, sessionId: "s1" };
    const invalid: unknown[] = [
      undefined,
      null,
      [],
      { ...s },
      { ...s, kind: "unknown" },
      { version: 2, sessionId: "s1", kind: "session" },
      { version: 1, sessionId: "", kind: "session" },
      { version: 1, sessionId: 7, kind: "session" },
      { ...s, kind: "objective" },
      { ...s, kind: "phase", phase: "done" },
      { ...s, kind: "thread", thread: { id: " " } },
      { ...s, kind: "thread", thread: "T1" },
      { ...s, kind: "source", source: { url: "ftp://x", title: "t" } },
      { ...s, kind: "source" },
      { ...s, kind: "report", reportEntryId: "" },
    ];
    for (const data of invalid) expect(parseResearchEvent(custom(data))).toBeNull();
    expect(parseResearchEvent(custom({ ...s, kind: "session" }, "goal-state"))).toBeNull();
    const getterThatThrows = Object.defineProperty({}, "version", {
      get() {
        throw new Error("boom");
      },
      enumerable: true,
    });
    expect(parseResearchEvent(custom(getterThatThrows))).toBeNull();
  });

  it("never throws and yields null for foreign entries", () => {
    fc.assert(
      fc.property(arbForeignEntry, (entry) => {
        expect(parseResearchEvent(entry)).toBeNull();
      }),
    );
    fc.assert(fc.property(fc.anything(), (data) => void parseResearchEventData(data)));
  });
});

describe("researchEventEntryData", () => {
  it("round-trips every event through the entry data and JSON", () => {
    fc.assert(
      fc.property(arbResearchEvent, (event) => {
        const data = researchEventEntryData(event);
        expect(data.version).toBe(1);
        const line = JSON.parse(JSON.stringify(researchEntry(event, "e1"))) as SessionEntry;
        expect(parseResearchEvent(line)).toEqual(event);
      }),
    );
  });

  it("shares nothing with the event", () => {
    const event = { kind: "plan" as const, sessionId: "s", strategy: "", threads: [{ id: "T1", title: "", task: "" }] };
    const data = researchEventEntryData(event);
    expect(data).toEqual({ version: 1, ...event });
    if (data.kind === "plan") data.threads.push({ id: "T2", title: "", task: "" });
    expect(event.threads).toHaveLength(1);
  });
});

import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { applySessionListDelta, compareSessionRows, diffSessionLists, sessionRowKey, type SessionRow } from "./session-list.ts";

const row = (id: string, overrides: Partial<SessionRow> = {}): SessionRow => ({
  id,
  path: `/s/${id}.jsonl`,
  cwd: "/w",
  isSubagentSession: false,
  research: null,
  firstMessage: id,
  messageCount: 1,
  modified: "2026-01-01T00:00:00.000Z",
  ...overrides,
});

const rowArb: fc.Arbitrary<SessionRow> = fc
  .record({
    id: fc.constantFrom("a", "b", "c", "d", "e", "f"),
    runtimeOnly: fc.boolean(),
    messageCount: fc.nat({ max: 3 }),
    minute: fc.nat({ max: 5 }),
  })
  .map(({ id, runtimeOnly, messageCount, minute }) =>
    row(id, { messageCount, modified: `2026-01-01T00:0${minute}:00.000Z`, ...(runtimeOnly ? { runtimeOnly: true, path: "" } : {}) }),
  );

/** A list as the server holds it: one row per key. */
const listArb = fc.array(rowArb, { maxLength: 8 }).map((rows) => [...new Map(rows.map((r) => [sessionRowKey(r), r])).values()]);

describe("session list", () => {
  it("keys rows by path, and open runtimes without a listed file by id", () => {
    expect(sessionRowKey(row("a"))).toBe("/s/a.jsonl");
    expect(sessionRowKey(row("a", { runtimeOnly: true, path: "" }))).toBe("runtime:a");
  });

  it("orders runtime-only rows first, then newest first, then by key", () => {
    const rows = [
      row("old", { modified: "2026-01-01T00:00:00.000Z" }),
      row("new", { modified: "2026-01-02T00:00:00.000Z" }),
      row("rt", { runtimeOnly: true, path: "" }),
    ];
    expect([...rows].sort(compareSessionRows).map((r) => r.id)).toEqual(["rt", "new", "old"]);
  });

  it("applies upserts and removals by key, in list order", () => {
    const before = [row("a"), row("b")];
    const after = applySessionListDelta(before, {
      upserted: [row("b", { messageCount: 5 }), row("c", { modified: "2026-02-01T00:00:00.000Z" })],
      removed: ["/s/a.jsonl"],
    });
    expect(after.map((r) => [r.id, r.messageCount])).toEqual([
      ["c", 1],
      ["b", 5],
    ]);
    expect(before.map((r) => r.id)).toEqual(["a", "b"]);
  });

  test.prop([listArb, listArb])("law: applying the diff of two lists gives the second, in list order", (a, b) => {
    const delta = diffSessionLists(a, b);
    expect(applySessionListDelta(a, delta ?? { upserted: [], removed: [] })).toEqual([...b].sort(compareSessionRows));
    expect(diffSessionLists(b, b)).toBeNull();
  });
});

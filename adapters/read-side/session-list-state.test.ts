import { describe, expect, it } from "vitest";
import type { CheckpointHead } from "../projections/checkpoint-store.ts";
import type { ScanOutcome } from "../projections/projection-runner.ts";
import { applyScanOutcomes, emptySessionListState, listStatus, listSummaries } from "./session-list-state.ts";

type Row = { id: string };
const head = (path: string, summaryJson: string | null): CheckpointHead => ({
  path,
  stamp: { size: 1, mtimeMs: 1, ino: "1" },
  projectionKey: "k",
  summaryJson,
});
const folded = (path: string, summary: Row | null): ScanOutcome<Row> => ({
  kind: "folded",
  path,
  head: head(path, summary === null ? null : JSON.stringify(summary)),
  summary,
  restart: null,
  records: 1,
});
const kept = (path: string, summary: Row | null): ScanOutcome<Row> => ({
  kind: "kept",
  path,
  head: head(path, summary === null ? null : JSON.stringify(summary)),
  summary,
});

describe("the session list state", () => {
  it("lists new files once, a changed summary again, and an equal one not at all", () => {
    const state = emptySessionListState<Row>();
    expect(applyScanOutcomes(state, [folded("/s/b.jsonl", { id: "b" }), folded("/s/a.jsonl", { id: "a" })])).toEqual({
      upserted: [{ id: "b" }, { id: "a" }],
      removed: [],
    });
    expect(applyScanOutcomes(state, [kept("/s/a.jsonl", { id: "a" })])).toEqual({ upserted: [], removed: [] });
    expect(applyScanOutcomes(state, [folded("/s/a.jsonl", { id: "a2" })])).toEqual({ upserted: [{ id: "a2" }], removed: [] });
    expect(listSummaries(state)).toEqual([{ id: "a2" }, { id: "b" }]);
    expect(listSummaries(state, (x, y) => y.id.localeCompare(x.id))).toEqual([{ id: "b" }, { id: "a2" }]);
  });

  it("removes a listed file that is gone, becomes unreadable or stops being a session; an unknown removal says nothing", () => {
    const state = emptySessionListState<Row>();
    applyScanOutcomes(state, [folded("/s/a.jsonl", { id: "a" }), folded("/s/b.jsonl", { id: "b" }), folded("/s/c.jsonl", { id: "c" })]);
    const change = applyScanOutcomes(state, [
      { kind: "removed", path: "/s/a.jsonl" },
      { kind: "unreadable", path: "/s/b.jsonl", error: "EACCES" },
      folded("/s/c.jsonl", null),
      { kind: "removed", path: "/s/never.jsonl" },
    ]);
    expect(change).toEqual({ upserted: [], removed: ["/s/a.jsonl", "/s/b.jsonl", "/s/c.jsonl"] });
    expect(listSummaries(state)).toEqual([]);
    expect([...state.heads.keys()]).toEqual(["/s/c.jsonl"]);
    expect(listStatus(state, { ready: true, verified: false })).toEqual({
      filesOnDisk: 2,
      indexed: 0,
      invalid: 2,
      invalidPaths: ["/s/b.jsonl", "/s/c.jsonl"],
      ready: true,
      verified: false,
    });
  });
});

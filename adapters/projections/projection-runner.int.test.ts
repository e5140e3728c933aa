import fs from "node:fs";
import path from "node:path";
import { firstValueFrom } from "rxjs";
import { filter, timeout } from "rxjs/operators";
import { afterEach, describe, expect, it } from "vitest";
import type { LogRecord } from "../../domain/session-log.ts";
import { rebuild, type Projection } from "../../projections/projection.ts";
import { entryLine, headerLine, sessionText, tempDir, userLine } from "../session-files/session-lines.fixture.ts";
import { openLeylineDatabase, type LeylineDatabaseHandle } from "../sqlite/database.ts";
import { readSessionFile } from "../session-files/session-file-reader.ts";
import { stampOf } from "../session-files/file-tail.ts";
import { stateOf } from "./file-fold.ts";
import { createProjectionRunner, type ProjectionSet, type ScanOutcome } from "./projection-runner.ts";
import { openSessionTail } from "./session-tail.ts";

/** Test projection: entries counted by type, plus the malformed lines. */
interface Counts {
  byType: Record<string, number>;
  malformed: number;
  sessionId: string | null;
}
function countsProjection(version = 1): Projection<Counts, LogRecord> {
  return {
    name: "counts",
    version,
    initial: () => ({ byType: {}, malformed: 0, sessionId: null }),
    apply(draft, record) {
      if (record.kind === "header") draft.sessionId = record.header.id;
      else if (record.kind === "malformed") draft.malformed += 1;
      else draft.byType[record.entry.type] = (draft.byType[record.entry.type] ?? 0) + 1;
    },
  };
}
/** A second projection: the ids in file order. */
const idsProjection: Projection<{ ids: string[] }, LogRecord> = {
  name: "ids",
  version: 1,
  initial: () => ({ ids: [] }),
  apply(draft, record) {
    if (record.kind === "entry") draft.ids.push(record.entry.id);
  },
};

interface CountSummary {
  path: string;
  sessionId: string;
  entries: number;
}

function countSet(version = 1): ProjectionSet<CountSummary> {
  const counts = countsProjection(version);
  return {
    scope: "test-counts",
    projections: [counts, idsProjection],
    summarize(states, file) {
      const state = stateOf(states, counts);
      if (state.sessionId === null) return null;
      const entries = Object.values(state.byType).reduce((a, b) => a + b, 0);
      return { path: file.path, sessionId: state.sessionId, entries };
    },
  };
}

const handles: LeylineDatabaseHandle[] = [];
afterEach(async () => {
  for (const h of handles.splice(0)) await h.close();
});
async function openDb(dataDir: string): Promise<LeylineDatabaseHandle> {
  const handle = await openLeylineDatabase({ dataDir });
  handles.push(handle);
  return handle;
}

function scanFile(file: string): { path: string; stamp: ReturnType<typeof stampOf> } {
  return { path: file, stamp: stampOf(fs.statSync(file)) };
}

async function fullFold(file: string, version = 1): Promise<Record<string, unknown>> {
  const read = await readSessionFile(file, null);
  if (read.kind !== "restarted") throw new Error(read.kind);
  return { counts: rebuild(countsProjection(version), read.records), ids: rebuild(idsProjection, read.records) };
}

async function storedStates(handle: LeylineDatabaseHandle, file: string): Promise<unknown> {
  const row = await handle.db.selectFrom("projection_checkpoints").select("states").where("path", "=", file).executeTakeFirstOrThrow();
  return JSON.parse(row.states);
}

function only<S>(outcomes: ScanOutcome<S>[]): ScanOutcome<S> {
  expect(outcomes).toHaveLength(1);
  return outcomes[0] as ScanOutcome<S>;
}

describe("projection runner", () => {
  it("folds appended lines in steps (torn lines held back) to the same state as a full rebuild", async () => {
    const dir = tempDir("runner");
    const handle = await openDb(path.join(dir, "data"));
    const runner = createProjectionRunner(handle.db, countSet());
    const file = path.join(dir, "s.jsonl");
    const text = sessionText("aaaa-1111", 20) + entryLine("label", "l1", "aaaa0013", { targetId: "aaaa0000", label: "x" });
    const cuts = [0, 90, 300, 301, 777, text.length - 3, text.length];
    fs.writeFileSync(file, "");
    let heads = await runner.loadHeads();
    const kinds: string[] = [];
    for (let i = 1; i < cuts.length; i++) {
      fs.appendFileSync(file, text.slice(cuts[i - 1], cuts[i]));
      const outcome = only(await runner.scan([scanFile(file)], heads));
      kinds.push(outcome.kind === "folded" ? `folded:${outcome.restart ?? "append"}` : outcome.kind);
      heads = await runner.loadHeads();
    }
    expect(kinds[0]).toBe("folded:new");
    expect(kinds.slice(1)).toEqual(Array<string>(cuts.length - 2).fill("folded:append"));
    expect(await storedStates(handle, file)).toEqual(await fullFold(file));
    const summary = runner.parseSummary(heads.get(file) as NonNullable<ReturnType<typeof heads.get>>);
    expect(summary).toEqual({ path: file, sessionId: "aaaa-1111", entries: 21 });
  });

  it("keeps an unchanged file without reading it, and summarises a non-session file as null", async () => {
    const dir = tempDir("runner");
    const handle = await openDb(path.join(dir, "data"));
    const runner = createProjectionRunner(handle.db, countSet());
    const session = path.join(dir, "s.jsonl");
    const other = path.join(dir, "notes.jsonl");
    fs.writeFileSync(session, sessionText("bbbb", 3));
    fs.writeFileSync(other, '{"hello":"world"}\n');
    const first = await runner.scan([scanFile(session), scanFile(other)], new Map());
    expect(first.map((o) => o.kind)).toEqual(["folded", "folded"]);
    expect(first[1]).toMatchObject({ kind: "folded", summary: null });
    const second = await runner.scan([scanFile(session), scanFile(other)], await runner.loadHeads());
    expect(second.map((o) => o.kind)).toEqual(["kept", "kept"]);
    expect(second[0]).toMatchObject({ summary: { sessionId: "bbbb", entries: 3 } });
  });

  it("rebuilds from byte 0 when a projection version changes", async () => {
    const dir = tempDir("runner");
    const handle = await openDb(path.join(dir, "data"));
    const file = path.join(dir, "s.jsonl");
    fs.writeFileSync(file, sessionText("cccc", 4));
    const v1 = createProjectionRunner(handle.db, countSet(1));
    await v1.scan([scanFile(file)], new Map());
    const v2 = createProjectionRunner(handle.db, countSet(2));
    const outcome = only(await v2.scan([scanFile(file)], await v2.loadHeads()));
    expect(outcome).toMatchObject({ kind: "folded", restart: "projections-changed", records: 5 });
    expect((await v2.loadHeads()).get(file)?.projectionKey).toBe(v2.key);
    expect(v2.key).not.toBe(v1.key);
  });

  it("gives the same summaries and states with the cache deleted, and after a shrink or a replacement", async () => {
    const dir = tempDir("runner");
    const files = [0, 1, 2].map((i) => path.join(dir, `s${i}.jsonl`));
    files.forEach((f, i) => fs.writeFileSync(f, sessionText(`dddd-${i}`, 3 + i)));
    const dataDir = path.join(dir, "data");
    const warm = await openDb(dataDir);
    const runner = createProjectionRunner(warm.db, countSet());
    await runner.scan(files.map(scanFile), new Map());
    // Change the files: append to one, shrink one, replace one with a same-size file.
    fs.appendFileSync(files[0] as string, userLine("more", "dddd0002", "dddd9999"));
    fs.writeFileSync(files[1] as string, sessionText("dddd-1", 1));
    const replacement = path.join(dir, "r.tmp");
    fs.writeFileSync(replacement, sessionText("eeee-2", 5));
    expect(fs.statSync(replacement).size).toBe(fs.statSync(files[2] as string).size);
    fs.renameSync(replacement, files[2] as string);
    const outcomes = await runner.scan(files.map(scanFile), await runner.loadHeads());
    expect(outcomes.map((o) => (o.kind === "folded" ? o.restart : o.kind))).toEqual([null, "shrunk", "replaced"]);
    const warmSummaries = outcomes.map((o) => (o.kind === "folded" || o.kind === "kept" ? o.summary : null));
    const warmStates = await Promise.all(files.map((f) => storedStates(warm, f)));
    await warm.close();
    handles.splice(handles.indexOf(warm), 1);

    fs.rmSync(dataDir, { recursive: true });
    const cold = await openDb(dataDir);
    const coldRunner = createProjectionRunner(cold.db, countSet());
    const coldOutcomes = await coldRunner.scan(files.map(scanFile), await coldRunner.loadHeads());
    expect(coldOutcomes.map((o) => (o.kind === "folded" ? o.restart : o.kind))).toEqual(["new", "new", "new"]);
    expect(coldOutcomes.map((o) => (o.kind === "folded" ? o.summary : null))).toEqual(warmSummaries);
    expect(await Promise.all(files.map((f) => storedStates(cold, f)))).toEqual(warmStates);
    expect(warmSummaries[2]).toMatchObject({ sessionId: "eeee-2", entries: 5 });
    for (const f of files) expect(await storedStates(cold, f)).toEqual(await fullFold(f));
  });

  it("removes the checkpoint of a file that disappeared", async () => {
    const dir = tempDir("runner");
    const handle = await openDb(path.join(dir, "data"));
    const runner = createProjectionRunner(handle.db, countSet());
    const file = path.join(dir, "s.jsonl");
    fs.writeFileSync(file, sessionText("ffff", 2));
    const stamp = scanFile(file);
    await runner.scan([stamp], new Map());
    fs.rmSync(file);
    const outcome = only(await runner.scan([{ ...stamp, stamp: { ...stamp.stamp, size: 1 } }], await runner.loadHeads()));
    expect(outcome.kind).toBe("removed");
    expect((await runner.loadHeads()).size).toBe(0);
  });
});

describe("session tail (in-memory projections of an opened session)", () => {
  it("folds the whole file, then only appends, emitting states equal to a full rebuild", async () => {
    const dir = tempDir("tail");
    const file = path.join(dir, "s.jsonl");
    fs.writeFileSync(file, headerLine("gggg") + userLine("one", null, "g0000001"));
    const tail = openSessionTail(file, [countsProjection(), idsProjection]);
    const first = await firstValueFrom(tail.changes$);
    expect(first.exists).toBe(true);
    expect(first.states["ids"]).toEqual({ ids: ["g0000001"] });

    fs.appendFileSync(file, userLine("two", "g0000001", "g0000002") + '{"torn":');
    const second = await tail.refresh();
    expect(second.revision).toBe(first.revision + 1);
    expect(second.states["ids"]).toEqual({ ids: ["g0000001", "g0000002"] });
    expect(second.states).toEqual(await fullFold(file));

    const next = firstValueFrom(
      tail.changes$.pipe(
        filter((s) => s.revision > second.revision),
        timeout(5000),
      ),
    );
    fs.appendFileSync(file, "oops\n"); // completes the torn line as invalid JSON
    void tail.refresh();
    const third = await next;
    expect(third.stats.malformed).toBe(1);
    expect(third.states).toEqual(await fullFold(file));
    tail.close();
  });

  it("watches the file itself when asked to, and reports deletion", async () => {
    const dir = tempDir("tail");
    const file = path.join(dir, "s.jsonl");
    fs.writeFileSync(file, sessionText("hhhh", 1));
    const tail = openSessionTail(file, [idsProjection], { watch: true });
    const first = await firstValueFrom(tail.changes$);
    const appended = firstValueFrom(
      tail.changes$.pipe(
        filter((s) => s.revision > first.revision),
        timeout(5000),
      ),
    );
    fs.appendFileSync(file, userLine("x", "hhhh0000", "h0000009"));
    expect((await appended).states["ids"]).toEqual({ ids: ["hhhh0000", "h0000009"] });
    const gone = firstValueFrom(
      tail.changes$.pipe(
        filter((s) => !s.exists),
        timeout(5000),
      ),
    );
    fs.rmSync(file);
    expect((await gone).states["ids"]).toEqual({ ids: [] });
    tail.close();
  });
});

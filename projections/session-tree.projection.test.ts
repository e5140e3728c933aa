import { describe, it, expect } from "vitest";
import fc from "fast-check";
import type { LogRecord, SessionEntry } from "../domain/session-log.ts";
import { decodeSessionText } from "../domain/session-decoder.ts";
import { LIST_CHUNK_SIZE, RECORD_FANOUT } from "../domain/chunked-collections.ts";
import { activeBranch, childrenOf, entryIds, entryOf, labelOf, pathTo, type SessionTreeState } from "../domain/session-tree.ts";
import { fold, rebuild } from "./projection.ts";
import { sessionTreeProjection } from "./session-tree.projection.ts";
import { sessionFileArb, v3SessionFileArb, type GeneratedSessionFile } from "../test/arbitraries/session-log.arbitrary.ts";
import { unsharedObjects } from "../test/support/structural-sharing.ts";

const options = { orphans: true, noise: true };

function recordsOf(file: GeneratedSessionFile): LogRecord[] {
  return decodeSessionText(file.text).records;
}

function entriesOf(records: readonly LogRecord[]): SessionEntry[] {
  return records.flatMap((r) => (r.kind === "entry" ? [r.entry] : []));
}

/**
 * A non-incremental reference model in the style of pi's getTree over the whole file: latest entry per id,
 * first-occurrence order, children by parentId, roots = null/self/unknown parents; labels last-wins.
 */
function referenceTree(entries: readonly SessionEntry[]) {
  const byId = new Map<string, SessionEntry>();
  for (const e of entries) byId.set(e.id, e);
  const order = [...byId.keys()];
  const children: Record<string, string[]> = {};
  const roots: string[] = [];
  for (const id of order) {
    const e = byId.get(id) as SessionEntry;
    const p = e.parentId;
    if (typeof p === "string" && p !== id) (children[p] ??= []).push(id);
    if (p === null || p === id || typeof p !== "string" || !byId.has(p)) roots.push(id);
  }
  const labels: Record<string, string> = {};
  for (const e of entries) {
    if (e.type !== "label") continue;
    if (e.label) labels[e.targetId] = e.label;
    else delete labels[e.targetId];
  }
  const leafId = entries.length === 0 ? null : (entries[entries.length - 1] as SessionEntry).id;
  return { order, children, roots, labels, leafId };
}

function labelsOf(tree: SessionTreeState): Record<string, string> {
  return Object.fromEntries(Object.entries(tree.labels).map(([k, v]) => [k, v.label]));
}

describe("sessionTreeProjection", () => {
  it("is named and versioned, adds entries and ignores headers and malformed records", () => {
    expect(sessionTreeProjection.name).toBe("session-tree");
    expect(sessionTreeProjection.version).toBe(2);
    const records: LogRecord[] = [
      { kind: "header", line: 1, header: { type: "session", version: 3, id: "s", timestamp: "t", cwd: "/" } },
      { kind: "malformed", line: 2, reason: "invalid JSON" },
      { kind: "entry", line: 3, entry: { type: "custom", customType: "x", id: "a", parentId: null, timestamp: "t" } as SessionEntry },
    ];
    const tree = rebuild(sessionTreeProjection, records);
    expect(entryIds(tree)).toEqual(["a"]);
    expect(tree.anomalies).toBe(0);
  });

  it("equals a whole-file reference model", () => {
    fc.assert(
      fc.property(sessionFileArb(options), (file) => {
        const entries = entriesOf(recordsOf(file));
        const tree = rebuild(sessionTreeProjection, recordsOf(file));
        const model = referenceTree(entries);
        expect(entryIds(tree)).toEqual(model.order);
        expect(tree.roots).toEqual(model.roots);
        for (const id of entryIds(tree)) expect(childrenOf(tree, id)).toEqual(model.children[id] ?? []);
        expect(labelsOf(tree)).toEqual(model.labels);
        expect(tree.leafId).toBe(model.leafId);
        expect(tree.anomalies).toBe(0);
      }),
    );
  });

  it("equals the reference model with later duplicate ids (the last occurrence wins, first position kept)", () => {
    fc.assert(
      fc.property(
        v3SessionFileArb(options),
        fc.array(fc.tuple(fc.nat(), fc.nat(), fc.nat()), { minLength: 1, maxLength: 6 }),
        (file, dups) => {
          const records = recordsOf(file);
          const entries = entriesOf(records);
          fc.pre(entries.length > 0);
          const withDups: LogRecord[] = [...records];
          for (const [which, parent, at] of dups) {
            const original = entries[which % entries.length] as SessionEntry;
            const parentPick = parent % (entries.length + 1);
            const parentId = parentPick === entries.length ? null : (entries[parentPick] as SessionEntry).id;
            const duplicate = { ...original, parentId, timestamp: "dup" } as SessionEntry;
            withDups.splice(1 + (at % withDups.length), 0, { kind: "entry", line: 0, entry: duplicate });
          }
          const tree = rebuild(sessionTreeProjection, withDups);
          const model = referenceTree(entriesOf(withDups));
          expect(entryIds(tree)).toEqual(model.order);
          expect(tree.roots).toEqual(model.roots);
          for (const id of entryIds(tree)) expect(childrenOf(tree, id)).toEqual(model.children[id] ?? []);
          expect(tree.leafId).toBe(model.leafId);
          // incremental = rebuild holds with duplicates too
          const half = Math.floor(withDups.length / 2);
          expect(fold(sessionTreeProjection, rebuild(sessionTreeProjection, withDups.slice(0, half)), withDups.slice(half))).toEqual(tree);
        },
      ),
    );
  });

  it("incremental fold = full rebuild at every split point", () => {
    fc.assert(
      fc.property(sessionFileArb(options), fc.array(fc.nat(), { maxLength: 6 }), (file, cuts) => {
        const records = recordsOf(file);
        const whole = rebuild(sessionTreeProjection, records);
        for (let at = 0; at <= records.length; at++) {
          const head = rebuild(sessionTreeProjection, records.slice(0, at));
          expect(fold(sessionTreeProjection, head, records.slice(at))).toEqual(whole);
        }
        // and in several batches
        const points = [...new Set(cuts.map((c) => c % (records.length + 1)))].sort((a, b) => a - b);
        let state = sessionTreeProjection.initial();
        let from = 0;
        for (const to of [...points, records.length]) {
          state = fold(sessionTreeProjection, state, records.slice(from, to));
          from = to;
        }
        expect(state).toEqual(whole);
      }),
    );
  });

  it("folding twice gives equal results and leaves the earlier state untouched", () => {
    fc.assert(
      fc.property(v3SessionFileArb(options), (file) => {
        const records = recordsOf(file);
        const half = Math.floor(records.length / 2);
        const base = rebuild(sessionTreeProjection, records.slice(0, half));
        const snapshot = structuredClone(base);
        const a = fold(sessionTreeProjection, base, records.slice(half));
        const b = fold(sessionTreeProjection, base, records.slice(half));
        expect(a).toEqual(b);
        expect(base).toEqual(snapshot);
      }),
    );
  });

  it("treats unknown entry types like any other node (as pi does): same shape as a known type", () => {
    fc.assert(
      fc.property(v3SessionFileArb(options), (file) => {
        const records = recordsOf(file);
        const known = new Set([
          "message",
          "thinking_level_change",
          "model_change",
          "compaction",
          "branch_summary",
          "custom",
          "custom_message",
          "label",
          "session_info",
        ]);
        const replaced = records.map((r): LogRecord => {
          if (r.kind !== "entry" || known.has(r.entry.type)) return r;
          const { id, parentId, timestamp } = r.entry;
          return { ...r, entry: { type: "custom", customType: "stand-in", id, parentId, timestamp } as SessionEntry };
        });
        const a = rebuild(sessionTreeProjection, records);
        const b = rebuild(sessionTreeProjection, replaced);
        expect({ ...a, entries: entryIds(a) }).toEqual({ ...b, entries: entryIds(b) });
      }),
    );
  });

  it("a branch's path is unaffected by appends to another branch", () => {
    fc.assert(
      fc.property(
        v3SessionFileArb(options),
        fc.nat(),
        fc.array(fc.tuple(fc.nat(), fc.constantFrom("custom", "x_future")), { minLength: 1, maxLength: 8 }),
        (file, pick, appends) => {
          const records = recordsOf(file);
          const tree = rebuild(sessionTreeProjection, records);
          const ids = entryIds(tree);
          fc.pre(ids.length > 0);
          const target = ids[pick % ids.length] as string;
          const before = pathTo(tree, target);
          const onPath = new Set(before.map((e) => e.id));
          const others = ids.filter((id) => !onPath.has(id));
          const extra: LogRecord[] = appends.map(([p, type], i) => {
            const parents = [...others, ...appends.slice(0, i).map((_, j) => `new${j}`)];
            const parentId = parents.length === 0 ? null : (parents[p % parents.length] as string);
            return { kind: "entry", line: 0, entry: { type, id: `new${i}`, parentId, timestamp: "t" } as SessionEntry };
          });
          const after = fold(sessionTreeProjection, tree, extra);
          expect(pathTo(after, target)).toEqual(before);
          expect(after.leafId).toBe(`new${appends.length - 1}`);
        },
      ),
    );
  });

  it("the active branch ends at the leaf and follows parent links from a root", () => {
    fc.assert(
      fc.property(v3SessionFileArb(), (file) => {
        const tree = rebuild(sessionTreeProjection, recordsOf(file));
        const branch = activeBranch(tree);
        if (tree.leafId === null) {
          expect(branch).toEqual([]);
          return;
        }
        expect(branch.at(-1)?.id).toBe(tree.leafId);
        expect(branch[0]?.parentId).toBeNull();
        branch.slice(1).forEach((e, i) => expect(e.parentId).toBe(branch[i]?.id));
        for (const e of file.entries)
          if (e["type"] === "label" && typeof e["label"] === "string" && e["label"] !== "") {
            // some label is set for every target whose latest label entry sets one
            const latest = file.entries.filter((x) => x["type"] === "label" && x["targetId"] === e["targetId"]).at(-1);
            expect(labelOf(tree, e["targetId"] as string)).toBe(latest?.["label"] || undefined);
          }
      }),
    );
  });

  it("an append re-creates the same few objects at 2,000 and at 20,000 entries (O(1) state per append)", () => {
    const unsharedAfterAppend = (size: number) => {
      const chain = (i: number): SessionEntry =>
        ({
          type: "custom",
          customType: "x",
          id: `e${i}`,
          parentId: i === 0 ? null : [10, 20].includes(i) ? `e${i - 2}` : `e${i - 1}`,
          timestamp: "t",
        }) as SessionEntry;
      const records = Array.from({ length: size }, (_, i): LogRecord => ({ kind: "entry", line: i + 2, entry: chain(i) }));
      const before = rebuild(sessionTreeProjection, records);
      const appended = { type: "custom", customType: "x", id: "new", parentId: `e${size - 1}`, timestamp: "t" } as SessionEntry;
      const after = fold(sessionTreeProjection, before, [{ kind: "entry", line: 0, entry: appended }]);
      expect(after.leafId).toBe("new");
      expect(entryOf(after, `e${size - 1}`)).toBe(entryOf(before, `e${size - 1}`));
      return unsharedObjects(before, after);
    };
    const small = unsharedAfterAppend(2_000);
    const large = unsharedAfterAppend(20_000);
    // tree; entries, its top level, one group, one bucket; children, likewise, and the new sibling list;
    // order, its chunk array, the last chunk; the new entry
    expect(large.objects).toBe(small.objects);
    expect(large.objects).toBeLessThanOrEqual(15);
    // width copied: two levels of two records, one chunk, the chunk array (size / LIST_CHUNK_SIZE) and small change
    const bound = (size: number) => 4 * RECORD_FANOUT + LIST_CHUNK_SIZE + Math.ceil(size / LIST_CHUNK_SIZE) + 100;
    expect(large.keys).toBeLessThanOrEqual(bound(20_000));
    expect(small.keys).toBeLessThanOrEqual(bound(2_000));
  });
});

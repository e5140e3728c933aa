import { describe, it, expect } from "vitest";
import fc from "fast-check";
import { isDraft, produce } from "immer";
import {
  LIST_CHUNK_SIZE,
  bucketOf,
  emptyChunkedList,
  emptyChunkedRecord,
  listAt,
  listIndexOf,
  listPush,
  listToArray,
  recordGet,
  recordHas,
  recordKeys,
  recordSet,
  recordUpdate,
  type ChunkedRecord,
} from "./chunked-collections.ts";

describe("chunked record", () => {
  it("behaves like a record: last write wins, own keys only", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.string({ maxLength: 4 }).filter((k) => k !== "__proto__"),
            fc.integer(),
          ),
        ),
        (writes) => {
          const record = emptyChunkedRecord<number>();
          const model = new Map<string, number>();
          for (const [k, v] of writes) {
            recordSet(record, k, v);
            model.set(k, v);
          }
          for (const [k, v] of model) expect(recordGet(record, k)).toBe(v);
          expect(recordKeys(record).sort()).toEqual([...model.keys()].sort());
          for (const name of ["constructor", "toString", "hasOwnProperty"]) {
            expect(recordHas(record, name)).toBe(model.has(name));
          }
        },
      ),
    );
  });

  it("on a draft, reads return stored values without drafting, and updates copy one bucket", () => {
    const base = emptyChunkedRecord<{ n: number }[]>();
    for (let i = 0; i < 3000; i++) recordSet(base, `k${i}`, [{ n: i }]);
    const frozen = produce(base, () => undefined);
    const next = produce(frozen, (draft) => {
      const read = recordGet(draft as ChunkedRecord<{ n: number }[]>, "k7");
      expect(isDraft(read)).toBe(false);
      expect(read).toBe(recordGet(frozen, "k7"));
      recordUpdate(draft as ChunkedRecord<{ n: number }[]>, "k8", (list = []) => {
        expect(isDraft(list)).toBe(true);
        list.push({ n: -1 });
        return list;
      });
    });
    expect(recordGet(next, "k8")).toEqual([{ n: 8 }, { n: -1 }]);
    expect(recordGet(frozen, "k8")).toEqual([{ n: 8 }]);
    const [group, bucket] = bucketOf("k8");
    const changedGroups = Object.keys(next.buckets).filter((g) => next.buckets[g] !== frozen.buckets[g]);
    expect(changedGroups).toEqual([group]);
    const nextGroup = next.buckets[group] ?? {};
    const changedBuckets = Object.keys(nextGroup).filter((b) => nextGroup[b] !== frozen.buckets[group]?.[b]);
    expect(changedBuckets).toEqual([bucket]);
  });
});

describe("chunked list", () => {
  it("keeps order, full chunks but the last, and random access", () => {
    fc.assert(
      fc.property(fc.array(fc.integer(), { maxLength: 3 * LIST_CHUNK_SIZE + 5 }), (items) => {
        const list = emptyChunkedList<number>();
        for (const item of items) listPush(list, item);
        expect(listToArray(list)).toEqual(items);
        expect(list.length).toBe(items.length);
        expect(list.chunks.slice(0, -1).every((c) => c.length === LIST_CHUNK_SIZE)).toBe(true);
        if (items.length > 0) {
          const i = items.length - 1;
          expect(listAt(list, i)).toBe(items[i]);
          expect(listIndexOf(list, items[i] as number)).toBe(items.indexOf(items[i] as number));
        }
        expect(listAt(list, items.length)).toBeUndefined();
        expect(listAt(list, -1)).toBeUndefined();
      }),
    );
  });

  it("an append under Immer copies the last chunk only", () => {
    const base = produce(emptyChunkedList<number>(), (draft) => {
      for (let i = 0; i < 10 * LIST_CHUNK_SIZE + 3; i++) listPush(draft, i);
    });
    const next = produce(base, (draft) => listPush(draft, -1));
    expect(next.chunks.slice(0, -1).every((c, i) => c === base.chunks[i])).toBe(true);
    expect(listToArray(next).at(-1)).toBe(-1);
    expect(listToArray(base).at(-1)).toBe(10 * LIST_CHUNK_SIZE + 2);
  });
});

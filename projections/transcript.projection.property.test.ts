/**
 * Laws of the transcript projection on generated session logs with branches, orphans, duplicate ids, tool
 * calls and results sharing a small id pool, system-prompt snapshots and unknown entry types:
 * incremental fold = rebuild at every split point; purity; the transcript equals the mapping of the session
 * tree's pathTo(leaf); unknown entry types change nothing; a branch's view ignores appends to other branches.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeSessionText } from "../domain/session-decoder.ts";
import type { LogRecord, SessionEntry } from "../domain/session-log.ts";
import { addEntry, emptySessionTree, pathTo } from "../domain/session-tree.ts";
import { SYSTEM_PROMPT_CUSTOM_TYPE } from "../domain/transcript/system-prompt.ts";
import { transcriptOfPath } from "../domain/transcript/transcript-builder.ts";
import { v3SessionFileArb } from "../test/arbitraries/session-log.arbitrary.ts";
import { fold, rebuild } from "./projection.ts";
import { selectTranscript, transcriptProjection } from "./transcript.projection.ts";

/**
 * The state as the fold's draft. Plain objects are what immer hands the fold; pi 1.x types tool-call arguments
 * as readonly JSON, which immer's Draft type rejects although the fold never writes into them.
 */
type TranscriptDraft = Parameters<typeof transcriptProjection.apply>[0];
const asDraft = (state: ReturnType<typeof transcriptProjection.initial>): TranscriptDraft => state as unknown as TranscriptDraft;

type Json = Record<string, unknown>;
const CALL_IDS = ["t1", "t2", "t3"] as const;
const SECTIONS = ["Intro text.", "# Tools\nuse read", "# Tools\nuse grep", "## Rules\nbe brief", "### Notes\nnone"] as const;
const TOOLS = [
  { name: "read", description: "Read" },
  { name: "bash", description: "Run" },
  { name: "vision_agent", description: "See" },
  { name: "read", description: "Read files" },
];

const body: fc.Arbitrary<Json> = fc.oneof(
  fc.string({ maxLength: 6 }).map((text) => ({ type: "message", message: { role: "user", content: text, timestamp: 1 } })),
  fc
    .record({
      text: fc.string({ maxLength: 6 }),
      calls: fc.array(fc.constantFrom(...CALL_IDS), { maxLength: 2 }),
      stop: fc.constantFrom("stop", "toolUse", "aborted", "error"),
    })
    .map(({ text, calls, stop }) => ({
      type: "message",
      message: {
        role: "assistant",
        content: [{ type: "text", text }, ...calls.map((id) => ({ type: "toolCall", id, name: "edit", arguments: { path: "a.ts" } }))],
        provider: "faux",
        model: "faux-1",
        usage: {
          input: 1,
          output: 2,
          cacheRead: 0,
          cacheWrite: 0,
          totalTokens: 3,
          cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
        },
        stopReason: stop,
        timestamp: 2,
      },
    })),
  {
    weight: 2,
    arbitrary: fc.record({ id: fc.constantFrom(...CALL_IDS), isError: fc.boolean() }).map(({ id, isError }) => ({
      type: "message",
      message: {
        role: "toolResult",
        toolCallId: id,
        toolName: "edit",
        content: [{ type: "text", text: `r-${id}` }],
        details: { diff: "+x" },
        isError,
        timestamp: 3,
      },
    })),
  },
  fc.constant({
    type: "message",
    message: { role: "bashExecution", command: "ls", output: "a", exitCode: 0, cancelled: false, truncated: false, timestamp: 4 },
  }),
  fc.constant({ type: "model_change", provider: "faux", modelId: "faux-2" }),
  fc.constant({ type: "thinking_level_change", thinkingLevel: "high" }),
  fc.constant({ type: "compaction", summary: "sum", firstKeptEntryId: "x", tokensBefore: 10 }),
  fc.constant({ type: "branch_summary", summary: "b", fromId: "root" }),
  fc.constant({ type: "custom_message", customType: "notice", content: "n", display: true }),
  fc.constant({ type: "label", targetId: "x", label: "l" }),
  fc.constant({ type: "custom", customType: "todo", data: {} }),
  fc.record({ sections: fc.subarray([...SECTIONS]), tools: fc.subarray(TOOLS) }).map(({ sections, tools }) => ({
    type: "custom",
    customType: SYSTEM_PROMPT_CUSTOM_TYPE,
    data: { version: 1, prompt: sections.join("\n"), tools },
  })),
);

/** How an entry attaches: to the leaf, to an earlier entry, as a root, to a missing parent, or reusing an id. */
const attach = fc.oneof(
  { weight: 10, arbitrary: fc.constant({ kind: "chain" as const, pick: 0 }) },
  { weight: 3, arbitrary: fc.nat().map((pick) => ({ kind: "branch" as const, pick })) },
  { weight: 1, arbitrary: fc.constant({ kind: "root" as const, pick: 0 }) },
  { weight: 1, arbitrary: fc.nat().map((pick) => ({ kind: "orphan" as const, pick })) },
  { weight: 1, arbitrary: fc.nat().map((pick) => ({ kind: "duplicate" as const, pick })) },
);

const logArb: fc.Arbitrary<LogRecord[]> = fc.array(fc.record({ body, attach }), { maxLength: 40 }).map((plans) => {
  const ids: string[] = [];
  let leaf: string | null = null;
  return plans.map(({ body: b, attach: a }, i) => {
    let id = `e${i}`;
    let parentId: string | null = leaf;
    if (a.kind === "branch") parentId = i === 0 ? null : (ids[a.pick % i] as string);
    if (a.kind === "root") parentId = null;
    if (a.kind === "orphan") parentId = `missing${a.pick % 3}`;
    if (a.kind === "duplicate" && i > 0) id = ids[a.pick % i] as string;
    ids.push(id);
    leaf = id;
    return {
      kind: "entry",
      line: i + 2,
      entry: { ...b, id, parentId, timestamp: `2026-01-01T00:00:${String(i % 60).padStart(2, "0")}.000Z` } as SessionEntry,
    };
  });
});

/** Logs from the shared session-log arbitrary too (decoded from text: noise, v3 trees, orphans). */
const sharedLogArb: fc.Arbitrary<LogRecord[]> = v3SessionFileArb({ orphans: true, noise: true, maxEntries: 25 }).map(
  (file) => decodeSessionText(file.text).records,
);
const anyLog = fc.oneof(logArb, sharedLogArb);

const clone = (records: readonly LogRecord[]): LogRecord[] => structuredClone(records) as LogRecord[];

function treeOracle(records: readonly LogRecord[]) {
  const tree = emptySessionTree();
  for (const r of records) if (r.kind === "entry") addEntry(tree, r.entry);
  return tree.leafId === null ? [] : transcriptOfPath(pathTo(tree, tree.leafId));
}

describe("transcript projection laws", () => {
  it("incremental fold equals the full rebuild at every split point", () => {
    fc.assert(
      fc.property(anyLog, (records) => {
        const full = rebuild(transcriptProjection, clone(records));
        for (let k = 0; k <= records.length; k++) {
          const first = rebuild(transcriptProjection, clone(records.slice(0, k)));
          expect(fold(transcriptProjection, first, clone(records.slice(k)))).toEqual(full);
        }
      }),
      { numRuns: 40 },
    );
  });

  it("applyBatch equals applying the records one by one, for any batches", () => {
    fc.assert(
      fc.property(anyLog, fc.array(fc.nat(), { maxLength: 5 }), (records, cuts) => {
        const oneByOne = transcriptProjection.initial();
        for (const record of clone(records)) transcriptProjection.apply(asDraft(oneByOne), record);
        const batched = transcriptProjection.initial();
        const bounds = [0, ...cuts.map((c) => c % (records.length + 1)).sort((a, b) => a - b), records.length];
        const copy = clone(records);
        for (let i = 1; i < bounds.length; i++) transcriptProjection.applyBatch?.(asDraft(batched), copy.slice(bounds[i - 1], bounds[i]));
        expect(batched).toEqual(oneByOne);
      }),
      { numRuns: 150 },
    );
  });

  it("deferred batches followed by all of completeSteps equal the plain fold", () => {
    fc.assert(
      fc.property(anyLog, fc.array(fc.nat(), { maxLength: 5 }), (records, cuts) => {
        const plain = rebuild(transcriptProjection, clone(records));
        const deferred = transcriptProjection.initial();
        const bounds = [0, ...cuts.map((c) => c % (records.length + 1)).sort((a, b) => a - b), records.length];
        const copy = clone(records);
        for (let i = 1; i < bounds.length; i++)
          transcriptProjection.applyBatch?.(asDraft(deferred), copy.slice(bounds[i - 1], bounds[i]), { defer: true });
        for (const _step of transcriptProjection.completeSteps?.(asDraft(deferred)) ?? []) {
          // each step leaves the state incomplete until the last one
        }
        expect(deferred).toEqual(plain);
        expect(deferred).not.toHaveProperty("stale");
      }),
      { numRuns: 150 },
    );
  });

  it("is pure: folding the same records twice gives equal states and leaves the records as they were", () => {
    fc.assert(
      fc.property(anyLog, (records) => {
        const snapshot = JSON.stringify(records);
        const a = rebuild(transcriptProjection, records);
        const b = rebuild(transcriptProjection, records);
        expect(a).toEqual(b);
        expect(JSON.stringify(records)).toBe(snapshot);
      }),
      { numRuns: 100 },
    );
  });

  it("equals the mapping of the session tree's pathTo(leaf) after every record", () => {
    fc.assert(
      fc.property(anyLog, (records) => {
        let state = transcriptProjection.initial();
        records.forEach((record, i) => {
          state = fold(transcriptProjection, state, [record]);
          expect(selectTranscript(state)).toEqual(treeOracle(records.slice(0, i + 1)));
        });
      }),
      { numRuns: 100 },
    );
  });

  it("unknown entry types change nothing, wherever they are spliced into the tree", () => {
    fc.assert(
      fc.property(logArb, fc.array(fc.boolean(), { minLength: 40, maxLength: 40 }), (records, splice) => {
        // after a spliced entry E, insert U (unknown type, child of E) and re-parent E's later children to U
        const out: LogRecord[] = [];
        const renamed: Record<string, string> = {};
        const seen = new Set<string>();
        records.forEach((record, i) => {
          if (record.kind !== "entry") return;
          const entry = { ...record.entry } as SessionEntry;
          if (typeof entry.parentId === "string" && Object.hasOwn(renamed, entry.parentId))
            entry.parentId = renamed[entry.parentId] as string;
          out.push({ ...record, entry });
          if (splice[i] === true && !seen.has(entry.id)) {
            const unknown = {
              type: "x_future_entry",
              id: `u${i}`,
              parentId: entry.id,
              timestamp: entry.timestamp,
              payload: { a: 1 },
            } as unknown as SessionEntry;
            out.push({ kind: "entry", line: 0, entry: unknown });
            renamed[entry.id] = unknown.id;
          }
          seen.add(entry.id);
        });
        // the last record's leaf may now be an unknown entry: compare the transcripts of the same logical leaf
        const withUnknown = selectTranscript(rebuild(transcriptProjection, out));
        const without = selectTranscript(rebuild(transcriptProjection, records));
        expect(withUnknown).toEqual(without);
      }),
      { numRuns: 150 },
    );
  });

  it("a branch's view ignores appends to another branch", () => {
    fc.assert(
      fc.property(logArb, fc.array(body, { minLength: 1, maxLength: 6 }), fc.nat(), (records, others, pick) => {
        const entries = records.flatMap((r) => (r.kind === "entry" ? [r.entry] : []));
        if (entries.length < 2) return;
        const before = rebuild(transcriptProjection, records);
        const leaf = before.tree.leafId as string;
        const branchFrom = (entries[pick % entries.length] as SessionEntry).id;
        // grow another branch from an earlier entry, then come back with a user message under the old leaf
        const detour: LogRecord[] = others.map((b, i) => ({
          kind: "entry",
          line: 0,
          entry: { ...b, id: `o${i}`, parentId: i === 0 ? branchFrom : `o${i - 1}`, timestamp: "t" } as SessionEntry,
        }));
        const back: LogRecord = {
          kind: "entry",
          line: 0,
          entry: {
            type: "message",
            id: "back",
            parentId: leaf,
            timestamp: "t",
            message: { role: "user", content: "back", timestamp: 9 },
          } as SessionEntry,
        };
        const after = fold(transcriptProjection, fold(transcriptProjection, before, detour), [back]);
        const direct = fold(transcriptProjection, before, [back]);
        expect(selectTranscript(after)).toEqual(selectTranscript(direct));
        expect(selectTranscript(after).slice(0, -1)).toEqual(selectTranscript(before));
      }),
      { numRuns: 150 },
    );
  });
});

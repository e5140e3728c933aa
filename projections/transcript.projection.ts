/**
 * The transcript of a session's active branch (TranscriptEntry[]), maintained incrementally from log records.
 *
 * Per appended entry:
 * - common case: a new entry whose parent is the current leaf extends the transcript (a toolResult completes
 *   its pending tool entry through `pendingToolIndexByCallId`): O(size of the entry), no walk of the branch;
 * - otherwise (a new branch, an orphan, a duplicate id, a self-parented entry): the transcript is rebuilt from
 *   the path root -> new leaf.
 * Malformed records are counted; headers change nothing; unknown entry types move the leaf but add nothing.
 *
 * The state keeps its own lean entry index (domain/transcript/entry-index.ts) rather than a SessionTreeState:
 * the tree's single `entries` record (and `order`, `children`) would be copied and re-walked by Immer on every
 * append, O(n) per entry. The index follows the tree's placement rules, so the transcript always equals
 * `transcriptOfPath(pathTo(tree, tree.leafId))` for the session tree of the same records (property-tested).
 */
import { current, isDraft, type Draft } from "immer";
import type { LogRecord, SessionEntry } from "../domain/session-log.ts";
import {
  emptyEntryIndex,
  indexedPathTo,
  indexEntry,
  lookupEntry,
  type EntryIndexState,
} from "../domain/transcript/entry-index.ts";
import {
  appendToTranscript,
  buildTranscript,
  emptyTranscriptBuild,
  transcriptEntries,
  type TranscriptBuildState,
} from "../domain/transcript/transcript-builder.ts";
import type { TranscriptEntry } from "../domain/transcript/transcript-types.ts";
import type { Projection } from "./projection.ts";

export interface TranscriptState {
  /** Every entry by id, and the active leaf. */
  index: EntryIndexState;
  /** The transcript of the path root -> index.leafId. */
  transcript: TranscriptBuildState;
  /** Malformed log records seen (reported, never fatal). */
  malformedRecords: number;
}

function applyEntry(state: TranscriptState, entry: SessionEntry): void {
  const previousLeaf = state.index.leafId;
  const id: unknown = entry.id;
  const isNew = typeof id === "string" && lookupEntry(state.index, id) === undefined && entry.parentId !== id;
  const extendsLeaf = isNew && (entry.parentId ?? null) === previousLeaf;
  if (!indexEntry(state.index, entry)) return; // unusable id: counted, nothing moved
  if (extendsLeaf) {
    appendToTranscript(state.transcript, entry);
    return;
  }
  // The leaf moved to another branch: rebuild from its path, read from a plain snapshot (no draft proxies).
  const index = isDraft(state.index) ? current(state.index) : state.index;
  state.transcript = buildTranscript(indexedPathTo(index, entry.id));
}

export const transcriptProjection: Projection<TranscriptState, LogRecord> = {
  name: "transcript",
  version: 1,
  initial: () => ({ index: emptyEntryIndex(), transcript: emptyTranscriptBuild(), malformedRecords: 0 }),
  apply(draft: Draft<TranscriptState>, input: LogRecord): void {
    switch (input.kind) {
      case "entry":
        applyEntry(draft as TranscriptState, input.entry);
        return;
      case "malformed":
        draft.malformedRecords += 1;
        return;
      default:
        return;
    }
  },
};

const flattened = new WeakMap<object, TranscriptEntry[]>();

/** The active branch's transcript (memoised per state: the same array while the transcript is unchanged). */
export function selectTranscript(state: TranscriptState): TranscriptEntry[] {
  const chunks = state.transcript.chunks;
  let entries = flattened.get(chunks);
  if (entries === undefined) {
    entries = transcriptEntries(state.transcript);
    flattened.set(chunks, entries);
  }
  return entries;
}

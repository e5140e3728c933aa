/**
 * The transcript of a session's active branch (TranscriptEntry[]), maintained incrementally from log records.
 *
 * The state holds a session tree (domain/session-tree.ts: the same placement rules, so the transcript always
 * equals `transcriptOfPath(activeBranch(tree))`) and the transcript build of its active branch. Per appended
 * entry:
 * - common case: a new entry whose parent is the current leaf extends the transcript (a toolResult completes
 *   its pending tool entry through `pendingToolIndexByCallId`): O(size of the entry); the tree's own update is
 *   O(1) (bucketed storage), so an append costs the same whatever the session's size;
 * - otherwise (a new branch, an orphan, a duplicate id, a self-parented entry): the transcript is rebuilt from
 *   `pathTo(tree, leaf)`, O(path length). `pathTo` reads the draft without creating drafts and returns the
 *   stored (frozen) entries, so no snapshot of the state is taken.
 * Malformed records are counted; headers change nothing; unknown entry types move the leaf but add nothing.
 */
import type { Draft } from "immer";
import type { LogRecord, SessionEntry } from "../domain/session-log.ts";
import { addEntry, emptySessionTree, entryOf, pathTo, type SessionTreeState } from "../domain/session-tree.ts";
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
  /** The session tree of every entry seen; its leaf is the transcript's leaf. */
  tree: SessionTreeState;
  /** The transcript of the path root -> tree.leafId. */
  transcript: TranscriptBuildState;
  /** Malformed log records seen (reported, never fatal). */
  malformedRecords: number;
}

function applyEntry(state: TranscriptState, entry: SessionEntry): void {
  const tree = state.tree;
  const previousLeaf = tree.leafId;
  const id: unknown = entry.id;
  const extendsLeaf =
    typeof id === "string" && entry.parentId !== id && (entry.parentId ?? null) === previousLeaf && entryOf(tree, id) === undefined;
  if (!addEntry(tree, entry)) return; // unusable id: counted, nothing moved
  if (extendsLeaf) appendToTranscript(state.transcript, entry);
  else state.transcript = buildTranscript(pathTo(tree, entry.id));
}

export const transcriptProjection: Projection<TranscriptState, LogRecord> = {
  name: "transcript",
  // 2: the state holds a session tree instead of its own entry index.
  version: 2,
  initial: () => ({ tree: emptySessionTree(), transcript: emptyTranscriptBuild(), malformedRecords: 0 }),
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
  const list = state.transcript.entries;
  let entries = flattened.get(list);
  if (entries === undefined) {
    entries = transcriptEntries(state.transcript);
    flattened.set(list, entries);
  }
  return entries;
}

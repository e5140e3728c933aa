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
 *
 * A batch (`applyBatch`: a file read at once, or a slice of it) rebuilds at most once: after the first entry
 * that does not extend the leaf, the rest only grow the tree, and the transcript is built from the final
 * leaf's path at the end. A file with many branches then costs O(entries + final path) instead of O(path) per
 * branch (a generated 50 MB session: 4.5 s of rebuilds, 200 ms for some 256 KB slices).
 *
 * A deferred batch (a large file's first read, in slices nobody sees until the end) does not even rebuild:
 * it marks the transcript `stale`, and `completeSteps` rebuilds it from the final leaf in steps of
 * `REBUILD_STEP` path entries, so the fold never holds the event loop for a whole rebuild.
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
  /** Only inside a deferred fold (see `applyBatch`): the transcript must be rebuilt from the leaf's path. */
  stale?: true;
}

/** Path entries mapped per step of a deferred rebuild. */
export const REBUILD_STEP = 1000;

/** Whether an entry about to be added makes the current leaf its parent (the transcript only grows). */
function extendsLeaf(tree: SessionTreeState, entry: SessionEntry): boolean {
  const id: unknown = entry.id;
  return typeof id === "string" && entry.parentId !== id && (entry.parentId ?? null) === tree.leafId && entryOf(tree, id) === undefined;
}

/** Adds an entry; returns false when the transcript must be rebuilt from the new leaf's path. */
function applyEntry(state: TranscriptState, entry: SessionEntry): boolean {
  const extending = extendsLeaf(state.tree, entry);
  if (!addEntry(state.tree, entry)) return true; // unusable id: counted, nothing moved
  if (!extending) return false;
  appendToTranscript(state.transcript, entry);
  return true;
}

function rebuildTranscript(state: TranscriptState): void {
  const leaf = state.tree.leafId;
  state.transcript = leaf === null ? emptyTranscriptBuild() : buildTranscript(pathTo(state.tree, leaf));
}

/** Applies records; rebuilds once at the end if one of them moved the leaf elsewhere (or marks it, deferred). */
function applyRecords(state: TranscriptState, inputs: readonly LogRecord[], defer: boolean): void {
  let stale = state.stale === true;
  for (const input of inputs) {
    if (input.kind === "malformed") state.malformedRecords += 1;
    else if (input.kind === "entry") {
      if (stale) addEntry(state.tree, input.entry);
      else stale = !applyEntry(state, input.entry);
    }
  }
  if (!stale) return;
  if (defer) state.stale = true;
  else {
    delete state.stale;
    rebuildTranscript(state);
  }
}

export const transcriptProjection: Projection<TranscriptState, LogRecord> = {
  name: "transcript",
  // 2: the state holds a session tree instead of its own entry index. 3: pi 1.x system messages as section diffs.
  version: 3,
  initial: () => ({ tree: emptySessionTree(), transcript: emptyTranscriptBuild(), malformedRecords: 0 }),
  apply(draft: Draft<TranscriptState>, input: LogRecord): void {
    applyRecords(draft as TranscriptState, [input], false);
  },
  applyBatch(draft: Draft<TranscriptState>, inputs: readonly LogRecord[], options?: { readonly defer?: boolean }): void {
    applyRecords(draft as TranscriptState, inputs, options?.defer === true);
  },
  *completeSteps(draft: Draft<TranscriptState>): Iterable<void> {
    const state = draft as TranscriptState;
    if (state.stale !== true) return;
    const leaf = state.tree.leafId;
    const path = leaf === null ? [] : pathTo(state.tree, leaf);
    const build = emptyTranscriptBuild();
    for (let i = 0; i < path.length; i++) {
      appendToTranscript(build, path[i] as SessionEntry);
      if ((i + 1) % REBUILD_STEP === 0) yield;
    }
    state.transcript = build;
    delete state.stale;
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

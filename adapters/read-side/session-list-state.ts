/**
 * The session index's list as a plain state and pure operations on it (no I/O): which files are listed with
 * which summary, which are known but unreadable, and the checkpoint heads the next scan compares against.
 * `applyScanOutcomes` folds a scan's outcomes into it and says what a subscriber must hear (`upserted`,
 * `removed`); `listSummaries` and `listStatus` read it. The session index (session-index.ts) owns one state and
 * drives it from its work queue (index-work-queue.ts).
 */
import { INVALID_PATHS_LIMIT, type SessionIndexStatus } from "../../domain/live/session-list.ts";
import type { CheckpointHead } from "../projections/checkpoint-store.ts";
import type { ScanOutcome } from "../projections/projection-runner.ts";

export interface ListedFile<Summary> {
  /** The summary column as stored: equal text = equal summary. */
  readonly summaryJson: string | null;
  readonly summary: Summary | null;
}

export interface SessionListState<Summary> {
  /** Files that were read, by path; a null summary is a file that is not a session (listed as invalid). */
  readonly files: Map<string, ListedFile<Summary>>;
  /** The checkpoint head of every folded file (what the next scan compares stamps against). */
  readonly heads: Map<string, CheckpointHead>;
  /** Files that could not be read. */
  readonly unreadable: Set<string>;
}

export function emptySessionListState<Summary>(): SessionListState<Summary> {
  return { files: new Map(), heads: new Map(), unreadable: new Set() };
}

/** What applying outcomes changed for subscribers: summaries new or changed, paths no longer listed. */
export interface ListChange<Summary> {
  readonly upserted: Summary[];
  readonly removed: string[];
}

/** Whether the state knows the file at all (read, folded or unreadable). */
export function isKnownFile(state: SessionListState<unknown>, file: string): boolean {
  return state.files.has(file) || state.heads.has(file) || state.unreadable.has(file);
}

/** Folds a scan's outcomes into `state` (mutated) and returns what changed for subscribers. */
export function applyScanOutcomes<Summary>(
  state: SessionListState<Summary>,
  outcomes: readonly ScanOutcome<Summary>[],
): ListChange<Summary> {
  const upserted: Summary[] = [];
  const removed: string[] = [];
  for (const outcome of outcomes) {
    const previous = state.files.get(outcome.path);
    const wasListed = previous !== undefined && previous.summary !== null;
    switch (outcome.kind) {
      case "kept":
      case "folded": {
        state.unreadable.delete(outcome.path);
        state.heads.set(outcome.path, outcome.head);
        state.files.set(outcome.path, { summaryJson: outcome.head.summaryJson, summary: outcome.summary });
        if (outcome.summary !== null) {
          if (previous === undefined || previous.summaryJson !== outcome.head.summaryJson) upserted.push(outcome.summary);
        } else if (wasListed) removed.push(outcome.path);
        break;
      }
      case "removed":
        if (!isKnownFile(state, outcome.path)) break;
        state.files.delete(outcome.path);
        state.heads.delete(outcome.path);
        state.unreadable.delete(outcome.path);
        if (wasListed) removed.push(outcome.path);
        break;
      case "unreadable":
        state.files.delete(outcome.path);
        state.heads.delete(outcome.path);
        state.unreadable.add(outcome.path);
        if (wasListed) removed.push(outcome.path);
        break;
    }
  }
  return { upserted, removed };
}

/** The listed summaries (files with a summary), in path order, then sorted by `order` when given. */
export function listSummaries<Summary>(state: SessionListState<Summary>, order?: (a: Summary, b: Summary) => number): Summary[] {
  const sessions: Summary[] = [];
  for (const file of [...state.files.keys()].sort()) {
    const summary = (state.files.get(file) as ListedFile<Summary>).summary;
    if (summary !== null) sessions.push(summary);
  }
  return order ? sessions.sort(order) : sessions;
}

/** The index status of the list (files on disk, listed, invalid with their first paths) and its two flags. */
export function listStatus(state: SessionListState<unknown>, flags: { ready: boolean; verified: boolean }): SessionIndexStatus {
  let indexed = 0;
  const invalidPaths: string[] = [...state.unreadable];
  for (const [file, listed] of state.files) {
    if (listed.summary !== null) indexed++;
    else invalidPaths.push(file);
  }
  const filesOnDisk = state.files.size + state.unreadable.size;
  return {
    filesOnDisk,
    indexed,
    invalid: filesOnDisk - indexed,
    invalidPaths: invalidPaths.sort().slice(0, INVALID_PATHS_LIMIT),
    ready: flags.ready,
    verified: flags.verified,
  };
}

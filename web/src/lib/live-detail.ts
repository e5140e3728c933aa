/**
 * The focused session's detail as the events socket delivers it (domain/live/live-messages.ts): a snapshot in
 * chunks (`session_snapshot`: `offset` 0 first, with the header fields and the leaf; complete with `done`), then
 * `session_delta`s, each applying to the revision it names as `base`. Entries travel packed
 * (domain/transcript/transcript-wire.ts) and are unpacked here.
 *
 * `applySnapshotChunk` and `applySessionDelta` return the next state and what happened:
 * - "changed": a snapshot completed or a delta applied (the detail to show changed);
 * - "pending": a chunk was taken, the snapshot is not complete yet;
 * - "ignored": nothing to do (another session's message, a delta already applied, a chunk of a snapshot this
 *   state did not see begin, a delta while a snapshot is on its way);
 * - "out-of-step": the state cannot follow the stream any more (a chunk that does not fit the snapshot being
 *   assembled, a delta for a revision it does not have): ask for a fresh snapshot.
 *
 * Pure: states are never mutated (a snapshot's chunks are kept as received and joined once, when it completes).
 */
import type { SessionDeltaData, SessionSnapshotData } from "../../../domain/live/live-messages.ts";
import type { SessionDetail, SessionDetailSession } from "../../../domain/session-detail.ts";
import { applyTranscriptDelta, mapTranscriptDelta } from "../../../domain/transcript/transcript-delta.ts";
import type { TranscriptEntry } from "../../../domain/transcript/transcript-types.ts";
import { unpackEntry } from "../../../domain/transcript/transcript-wire.ts";

/** A complete detail at a revision of the server's read model. */
export interface LiveDetail {
  readonly sessionId: string;
  readonly revision: number;
  readonly session: SessionDetailSession;
  readonly leafId: string | null;
  readonly entries: TranscriptEntry[];
}

/** A snapshot being received. */
export interface PendingSnapshot {
  readonly sessionId: string;
  readonly revision: number;
  readonly session: SessionDetailSession | null;
  readonly leafId: string | null;
  readonly total: number;
  /** Entries received so far. */
  readonly received: number;
  readonly chunks: readonly (readonly TranscriptEntry[])[];
}

export interface LiveDetailState {
  readonly current: LiveDetail | null;
  readonly pending: PendingSnapshot | null;
}

export type LiveDetailOutcome = "changed" | "pending" | "ignored" | "out-of-step";

export interface LiveDetailStep {
  readonly state: LiveDetailState;
  readonly outcome: LiveDetailOutcome;
}

export const EMPTY_LIVE_DETAIL: LiveDetailState = { current: null, pending: null };

/** The SessionDetail of a live detail. */
export function detailOf(live: LiveDetail): SessionDetail {
  return { session: live.session, entries: live.entries };
}

/** Takes one snapshot chunk. */
export function applySnapshotChunk(state: LiveDetailState, chunk: SessionSnapshotData): LiveDetailStep {
  const entries = chunk.entries.map(unpackEntry);
  let pending: PendingSnapshot;
  if (chunk.offset === 0) {
    pending = {
      sessionId: chunk.sessionId,
      revision: chunk.revision,
      session: chunk.session ?? null,
      leafId: chunk.leafId ?? null,
      total: chunk.total,
      received: entries.length,
      chunks: [entries],
    };
  } else {
    const was = state.pending;
    // A chunk of a snapshot whose beginning this state did not see: another one follows.
    if (was === null) return { state, outcome: "ignored" };
    if (
      was.sessionId !== chunk.sessionId ||
      was.revision !== chunk.revision ||
      was.received !== chunk.offset ||
      was.total !== chunk.total
    ) {
      return { state: { ...state, pending: null }, outcome: "out-of-step" };
    }
    pending = { ...was, received: was.received + entries.length, chunks: [...was.chunks, entries] };
  }
  if (!chunk.done) return { state: { ...state, pending }, outcome: "pending" };
  const previous = state.current;
  const session = pending.session ?? (previous?.sessionId === pending.sessionId ? previous.session : null);
  if (pending.received !== pending.total || session === null) return { state: { ...state, pending: null }, outcome: "out-of-step" };
  const current: LiveDetail = {
    sessionId: pending.sessionId,
    revision: pending.revision,
    session,
    leafId: pending.leafId,
    entries: pending.chunks.flat(),
  };
  return { state: { current, pending: null }, outcome: "changed" };
}

/** Applies one delta. */
export function applySessionDelta(state: LiveDetailState, delta: SessionDeltaData): LiveDetailStep {
  const current = state.current;
  const snapshotComing = state.pending !== null && state.pending.sessionId === delta.sessionId;
  if (current === null || current.sessionId !== delta.sessionId) return { state, outcome: snapshotComing ? "ignored" : "out-of-step" };
  // Already applied (or older than what this state holds).
  if (delta.revision <= current.revision) return { state, outcome: "ignored" };
  if (delta.base !== current.revision) return { state, outcome: snapshotComing ? "ignored" : "out-of-step" };
  const next: LiveDetail = {
    sessionId: current.sessionId,
    revision: delta.revision,
    session: delta.session ?? current.session,
    leafId: delta.leafId !== undefined ? delta.leafId : current.leafId,
    entries:
      delta.transcript === undefined
        ? current.entries
        : applyTranscriptDelta(current.entries, mapTranscriptDelta(delta.transcript, unpackEntry)),
  };
  return { state: { ...state, current: next }, outcome: "changed" };
}

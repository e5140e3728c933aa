import { defineStore } from "pinia";
import { ref } from "vue";
import { EMPTY_LIVE_STREAM, type LiveStreamState } from "../../../domain/live/live-stream.ts";
import type { Active, ActiveSnapshot, ExtensionUiState } from "../../../domain/runtime/runtime-types.ts";
import type { TranscriptEntry } from "../../../domain/transcript/transcript-types.ts";
import {
  dropProvisional,
  EMPTY_PROVISIONAL,
  nextProvisional,
  settleProvisional,
  type ProvisionalItem,
  type ProvisionalState,
} from "../lib/provisional-entries.ts";
import { asActiveSnapshot, isFullSnapshot, shouldApplySnapshot, type StoredSnapshot } from "../lib/snapshot-order.ts";
import {
  bashIn,
  EMPTY_SESSION_STREAM,
  type LiveBash,
  nextSessionStream,
  type SessionStream,
  settleSessionStream,
  streamingMessageOf,
  type StreamingMessage,
  toolOutputIn,
} from "../lib/streaming-message.ts";

/**
 * Open runtimes as the client knows them: the latest `Active` snapshot per session id (full for the session
 * the events socket focuses, compact for others), the runtime roster, what each session is streaming (the
 * reply, tool output, a `!` command: lib/streaming-message.ts, folded with the server's `applyLiveEvent`), and
 * the user prompts pi took that its file does not hold yet (lib/provisional-entries.ts).
 * Snapshots from the socket and from HTTP responses go through `applySnapshot`, which keeps
 * only newer ones (lib/snapshot-order.ts). Callers of runtime actions that answer `{ active }` should pass
 * it here too.
 */
export const useRuntimesStore = defineStore("runtimes", () => {
  const snapshots = ref<Record<string, StoredSnapshot>>({});
  const roster = ref<string[]>([]);
  /** Whether a roster arrived since the store was reset (until then, "not in the roster" means "unknown"). */
  const rosterSeen = ref(false);
  const streams = ref<Record<string, SessionStream>>({});
  const provisional = ref<Record<string, ProvisionalState>>({});
  /** Bumped when an events connection starts (see snapshot-order.ts). */
  const generation = ref(0);

  /** Takes a snapshot (any untyped body) when it is newer; returns it when applied, else null. */
  function applySnapshot(value: unknown): ActiveSnapshot | null {
    const snapshot = asActiveSnapshot(value);
    if (snapshot === null) return null;
    const current = snapshots.value[snapshot.id];
    if (!shouldApplySnapshot(current, snapshot, generation.value)) return null;
    snapshots.value = { ...snapshots.value, [snapshot.id]: { snapshot, full: isFullSnapshot(snapshot), generation: generation.value } };
    return snapshot;
  }

  /** A new events connection: its snapshot burst replaces what we had; streams restart (a `stream_snapshot` restores them). */
  function beginGeneration(): void {
    generation.value += 1;
    streams.value = {};
  }

  function applyRoster(sessionIds: readonly string[]): void {
    roster.value = [...sessionIds];
    rosterSeen.value = true;
    const keep = new Set(sessionIds);
    const next: Record<string, StoredSnapshot> = {};
    for (const [id, stored] of Object.entries(snapshots.value)) if (keep.has(id)) next[id] = stored;
    snapshots.value = next;
    const nextStreams: Record<string, SessionStream> = {};
    for (const [id, stream] of Object.entries(streams.value)) if (keep.has(id)) nextStreams[id] = stream;
    streams.value = nextStreams;
    const nextProvisionals: Record<string, ProvisionalState> = {};
    for (const [id, state] of Object.entries(provisional.value)) if (keep.has(id)) nextProvisionals[id] = state;
    provisional.value = nextProvisionals;
  }

  function remove(sessionId: string): void {
    const { [sessionId]: _removed, ...rest } = snapshots.value;
    snapshots.value = rest;
    const { [sessionId]: _stream, ...otherStreams } = streams.value;
    streams.value = otherStreams;
    const { [sessionId]: _provisional, ...otherProvisionals } = provisional.value;
    provisional.value = otherProvisionals;
    roster.value = roster.value.filter((id) => id !== sessionId);
  }

  /** extension_ui: the extension UI part of a session's snapshot (full or compact, as sent). */
  function applyExtensionUi(sessionId: string, ui: unknown): void {
    const stored = snapshots.value[sessionId];
    if (stored === undefined || typeof ui !== "object" || ui === null) return;
    const hasConfirmations = Array.isArray((ui as { confirmations?: unknown }).confirmations);
    // A compact update must not strip the confirmations of a full snapshot.
    if (stored.full && !hasConfirmations) return;
    const state = { ...stored.snapshot.state, extensionUi: ui as ExtensionUiState };
    const snapshot = { ...stored.snapshot, state } as ActiveSnapshot;
    snapshots.value = { ...snapshots.value, [sessionId]: { ...stored, snapshot } };
  }

  /** A runtime event of a session: updates what it streams and its provisional user prompts. */
  function applyRuntimeEvent(sessionId: string, event: { type: string; [key: string]: unknown }): void {
    const before = streams.value[sessionId] ?? EMPTY_SESSION_STREAM;
    const after = nextSessionStream(before, event);
    if (after !== before) streams.value = { ...streams.value, [sessionId]: after };
    const pendingBefore = provisional.value[sessionId] ?? EMPTY_PROVISIONAL;
    const pendingAfter = nextProvisional(pendingBefore, sessionId, event);
    if (pendingAfter !== pendingBefore) provisional.value = { ...provisional.value, [sessionId]: pendingAfter };
  }

  /** The last provisional prompt `seq` of a session (0 when none arrived): a mark for `settleProvisionals`. */
  function provisionalMark(sessionId: string): number {
    return provisional.value[sessionId]?.count ?? 0;
  }

  /**
   * Drops a session's provisional prompts the persisted entries now hold; with `endedRunSeq` (the mark taken
   * when a run ended) also the ones before it that the file passed over (lib/provisional-entries.ts).
   */
  function settleProvisionals(sessionId: string, persisted: readonly TranscriptEntry[], endedRunSeq: number | null = null): void {
    const before = provisional.value[sessionId];
    if (before === undefined) return;
    const after = settleProvisional(before, persisted, endedRunSeq);
    if (after !== before) provisional.value = { ...provisional.value, [sessionId]: after };
  }

  /** Forgets a session's provisional prompts up to a mark (a run ended in a session that is not shown). */
  function dropProvisionals(sessionId: string, upToSeq: number): void {
    const before = provisional.value[sessionId];
    if (before === undefined) return;
    const after = dropProvisional(before, upToSeq);
    if (after !== before) provisional.value = { ...provisional.value, [sessionId]: after };
  }

  function provisionalOf(sessionId: string | null): ProvisionalItem[] {
    if (sessionId === null) return [];
    return provisional.value[sessionId]?.items ?? [];
  }

  /**
   * Drops a session's finished streaming message once the persisted transcript has it (after the detail
   * refetch that followed message_end); a stream that started again since is kept. Without `streamingId` (a
   * session that is not shown) the ended tool and `!` output go too.
   */
  function settleStream(sessionId: string, streamingId: string | null = null): void {
    const stream = streams.value[sessionId];
    if (stream === undefined) return;
    if (streamingId !== null) {
      if (stream.ended === null || stream.live.message !== null || streamingMessageOf(sessionId, stream)?.id !== streamingId) return;
      streams.value = { ...streams.value, [sessionId]: { ...stream, ended: null } };
      return;
    }
    if (stream.ended === null && stream.endedBash === null && Object.keys(stream.endedTools).length === 0) return;
    streams.value = { ...streams.value, [sessionId]: { ...stream, ended: null, endedTools: {}, endedBash: null } };
  }

  /**
   * Drops what a session streamed that ended and that the persisted transcript now holds (the ended message,
   * tool output, `!` command): call it with the entries whenever they change.
   */
  function settleStreams(sessionId: string, persisted: readonly TranscriptEntry[]): void {
    const stream = streams.value[sessionId];
    if (stream === undefined) return;
    const settled = settleSessionStream(stream, persisted);
    if (settled !== stream) streams.value = { ...streams.value, [sessionId]: settled };
  }

  function snapshotOf(sessionId: string | null): ActiveSnapshot | null {
    if (sessionId === null) return null;
    return snapshots.value[sessionId]?.snapshot ?? null;
  }

  /** The full snapshot of a session, or null (not open, or only its compact form is known). */
  function activeOf(sessionId: string | null): Active | null {
    if (sessionId === null) return null;
    const stored = snapshots.value[sessionId];
    return stored !== undefined && stored.full ? (stored.snapshot as Active) : null;
  }

  function streamingOf(sessionId: string | null): StreamingMessage | null {
    if (sessionId === null) return null;
    const stream = streams.value[sessionId];
    return stream === undefined ? null : streamingMessageOf(sessionId, stream);
  }

  /** What a session's runtime streams right now, as the server folds it. */
  function liveOf(sessionId: string | null): LiveStreamState {
    if (sessionId === null) return EMPTY_LIVE_STREAM;
    return streams.value[sessionId]?.live ?? EMPTY_LIVE_STREAM;
  }

  /** A tool's output so far (running, or ended and not persisted yet); null when there is none. */
  function toolOutputOf(sessionId: string | null, toolCallId: string): string | null {
    if (sessionId === null) return null;
    const stream = streams.value[sessionId];
    return stream === undefined ? null : toolOutputIn(stream, toolCallId);
  }

  /** A session's `!` command to show live (running, or ended and not persisted yet). */
  function bashOf(sessionId: string | null): LiveBash | null {
    if (sessionId === null) return null;
    const stream = streams.value[sessionId];
    return stream === undefined ? null : bashIn(stream);
  }

  function isOpen(sessionId: string): boolean {
    return snapshots.value[sessionId] !== undefined || roster.value.includes(sessionId);
  }

  function reset(): void {
    snapshots.value = {};
    streams.value = {};
    provisional.value = {};
    roster.value = [];
    rosterSeen.value = false;
  }

  return {
    snapshots,
    roster,
    rosterSeen,
    streams,
    provisional,
    generation,
    applySnapshot,
    beginGeneration,
    applyRoster,
    remove,
    applyExtensionUi,
    applyRuntimeEvent,
    settleStream,
    settleStreams,
    provisionalMark,
    settleProvisionals,
    dropProvisionals,
    provisionalOf,
    snapshotOf,
    activeOf,
    streamingOf,
    liveOf,
    toolOutputOf,
    bashOf,
    isOpen,
    reset,
  };
});

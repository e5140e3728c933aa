/**
 * The worker's trace capture (spec "Trace routes": every run is captured as it happens, whether or not a view is
 * open): each pi session event goes through the pure capture fold (domain/traces/trace-capture.ts) with its time,
 * pi's leaf entry, the entry the last message wrote (once pi has appended it) and a fresh id, and the fold's writes
 * travel to the server as one `trace` message. The server decides what to store (capture on or off for new runs)
 * and stores it; the worker always reports.
 *
 * Entries: pi appends a user or assistant message after its `message_end` listeners ran, and other entries may be
 * appended around it (a model change, an extension's entry), so the message's entry is found by identity: the
 * entry whose `message` is that very object, searched from the leaf back a few steps at each later event.
 *
 * A run still open when the worker lets its session go (dispose, a replaced session) is ended as aborted here, with
 * the leaf its session last had, so the stored trace does not stay `running`; the server also ends runs of
 * runtimes whose worker is lost (a crash).
 */
import { randomUUID } from "node:crypto";
import { abandonCapture, type CaptureState, EMPTY_CAPTURE, stepCapture } from "../../domain/traces/trace-capture.ts";
import type { CaptureWrite } from "../../domain/traces/trace-records.ts";

/** Events the recorder skips: pi's streamed updates (the fold ignores them; they come many times a second). */
const STREAMED_UPDATES = new Set(["message_update", "tool_execution_update", "bash_execution_update"]);

/** How far back from the leaf a message's entry is searched. */
const ENTRY_SEARCH_DEPTH = 32;

/** What the recorder reads of pi's session manager. */
export interface TraceEntries {
  getLeafId(): string | null;
  getEntry(
    id: string,
  ): { readonly id: string; readonly parentId: string | null; readonly type: string; readonly message?: unknown } | undefined;
}

export interface TraceRecorderDeps {
  send(writes: CaptureWrite[]): void;
  /** The bound session's entries (null: no session). */
  entries(): TraceEntries | null;
  now?: () => number;
  newId?: () => string;
}

export interface TraceRecorder {
  push(event: { readonly type: string; readonly [key: string]: unknown }): void;
  /** Ends the open run (aborted, with `message`). */
  abandon(message: string): void;
}

/** The entry holding `message`, searched from the leaf back. */
function entryOf(entries: TraceEntries, message: unknown): string | null {
  let id = entries.getLeafId();
  for (let depth = 0; id !== null && depth < ENTRY_SEARCH_DEPTH; depth++) {
    const entry = entries.getEntry(id);
    if (entry === undefined) return null;
    if (entry.type === "message" && entry.message === message) return entry.id;
    id = entry.parentId;
  }
  return null;
}

function isMessageWithEntry(event: { readonly type: string; readonly [key: string]: unknown }): boolean {
  if (event.type !== "message_end") return false;
  const message = event["message"];
  const role = typeof message === "object" && message !== null ? (message as { role?: unknown }).role : undefined;
  return role === "user" || role === "assistant";
}

export function createTraceRecorder(deps: TraceRecorderDeps): TraceRecorder {
  const now = deps.now ?? Date.now;
  const newId = deps.newId ?? randomUUID;
  let state: CaptureState = EMPTY_CAPTURE;
  /** The message of the last user or assistant `message_end`, until its entry is found. */
  let pending: unknown = null;
  /** The entries of the session the last event came from (a replaced or closing session's runs end with them). */
  let lastEntries: TraceEntries | null = null;

  const emit = (writes: CaptureWrite[]): void => {
    if (writes.length > 0) deps.send(writes);
  };
  const messageEntry = (entries: TraceEntries | null): string | null => {
    if (pending === null || entries === null) return null;
    const id = entryOf(entries, pending);
    if (id !== null) pending = null;
    return id;
  };

  return {
    push(event) {
      // Streamed updates (twice per token) carry nothing a trace keeps: the fold reads the messages' ends.
      if (STREAMED_UPDATES.has(event.type)) return;
      const entries = deps.entries();
      lastEntries = entries;
      const messageEntryId = messageEntry(entries);
      const step = stepCapture(state, {
        event,
        at: now(),
        leafId: entries?.getLeafId() ?? null,
        messageEntryId,
        newId: event.type === "agent_start" ? newId() : "",
      });
      state = step.state;
      if (isMessageWithEntry(event)) pending = event["message"];
      emit(step.writes);
    },
    abandon(message) {
      // The session the run belonged to (the bound one may already be its replacement), as it is now: its last
      // message is usually on disk by then.
      const messageEntryId = messageEntry(lastEntries);
      const step = abandonCapture(state, { at: now(), leafId: lastEntries?.getLeafId() ?? null, messageEntryId }, message);
      state = step.state;
      pending = null;
      emit(step.writes);
    },
  };
}

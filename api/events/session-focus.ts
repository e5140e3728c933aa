/**
 * The focused session on one events stream (`?sessionId=` or a `focus` message): its id is resolved to a file
 * (the index's list, else an open runtime's file) and that file's detail is subscribed in the detail worker
 * (adapters/read-side/session-detail-feeds.ts), which sends ready-made messages (domain/live/live-messages.ts):
 * `session_loading` while a large file's first read runs, `session_snapshot` chunks (sent on demand by a
 * producer: a 50 MB transcript never sits in a socket buffer whole), `session_delta`, `session_unavailable`.
 * Until the id resolves (an unsaved runtime, a session not written yet) it waits for the session list and the
 * runtime roster to change, and says why.
 */
import fs from "node:fs";
import type { Subscription } from "rxjs";
import type { SessionUnavailableData, SessionUnavailableReason } from "../../domain/live/live-messages.ts";
import type { DetailSubscriber } from "../../adapters/read-side/session-detail-feeds.ts";
import type { ReadSide } from "../../adapters/read-side/read-side.ts";
import type { RuntimeHostView } from "../runtime-host.ts";
import { encodeMessageHead, type MessageProducer } from "./event-stream.ts";
import type { SessionListFeed } from "./session-list-feed.ts";

/** Where the focus's messages go (an EventStream). */
export interface FocusSink {
  enqueue(head: Buffer): void;
  enqueueProducer(producer: MessageProducer): void;
}

export interface SessionFocus {
  /**
   * Focuses a session (null: none). Focusing the current session again sends its detail again (a fresh snapshot:
   * the way a client that lost step gets back in).
   */
  set(sessionId: string | null): void;
  readonly sessionId: string | null;
  close(): void;
}

export interface SessionFocusDeps {
  readonly readSide: ReadSide;
  readonly runtimeHost: RuntimeHostView;
  readonly listFeed: SessionListFeed;
}

/**
 * The chunks of a snapshot, handed out one at a time when the socket has room; none once `current()` says the
 * snapshot is no longer wanted (the focus moved on: a client does not need the rest of a large snapshot).
 */
function chunkProducer(chunks: readonly Buffer[], current: () => boolean): MessageProducer {
  let next = 0;
  return { next: () => (next < chunks.length && (next > 0 ? current() : true) ? (chunks[next++] as Buffer) : null) };
}

type Located = { readonly file: string } | { readonly reason: Extract<SessionUnavailableReason, "unsaved" | "not-found"> };

const UNAVAILABLE_MESSAGES: Record<SessionUnavailableReason, string> = {
  "not-found": "Session not found",
  unsaved: "The session has not been written yet",
  gone: "The session file no longer exists",
  error: "The session cannot be read",
};

export function createSessionFocus(sink: FocusSink, deps: SessionFocusDeps): SessionFocus {
  let current: string | null = null;
  let detail: (() => void) | null = null;
  let watching: Subscription[] = [];
  let lastUnavailable: string | null = null;
  let generation = 0;
  let closed = false;

  function unavailable(sessionId: string, reason: SessionUnavailableReason, message = UNAVAILABLE_MESSAGES[reason]): void {
    const key = `${reason}\u0000${message}`;
    if (lastUnavailable === key) return;
    lastUnavailable = key;
    const data: SessionUnavailableData = { sessionId, reason, message };
    sink.enqueue(encodeMessageHead("session_unavailable", data));
  }

  function locate(sessionId: string): Located | null {
    const services = deps.readSide.current();
    if (services === null) return null;
    const listed = services.index.list().find((summary) => summary.id === sessionId);
    if (listed !== undefined) return { file: listed.path };
    const runtime = deps.runtimeHost.openRuntimes().find((r) => r.sessionId === sessionId);
    if (runtime === undefined) return { reason: "not-found" };
    if (runtime.sessionFile !== null && fs.existsSync(runtime.sessionFile)) return { file: runtime.sessionFile };
    return { reason: "unsaved" };
  }

  function stopWatching(): void {
    for (const subscription of watching) subscription.unsubscribe();
    watching = [];
  }

  function follow(sessionId: string, file: string, mine: number): void {
    const details = deps.readSide.current()?.details;
    if (details === undefined) return;
    /** The revision the stream's client has (it checks each delta's base against it). */
    let revision: number | null = null;
    /** The latest snapshot: an earlier one still being sent stops (its rest is out of date). */
    let snapshots = 0;
    const subscriber: DetailSubscriber = {
      loading: (head) => {
        if (mine === generation && revision === null) sink.enqueue(head);
      },
      snapshot: (snapshotRevision, chunks) => {
        if (mine !== generation) return;
        lastUnavailable = null;
        revision = snapshotRevision;
        const snapshot = ++snapshots;
        sink.enqueueProducer(chunkProducer(chunks, () => mine === generation && snapshot === snapshots));
      },
      delta: (base, deltaRevision, head) => {
        if (mine !== generation || revision === null || deltaRevision <= revision) return;
        if (base !== revision) {
          // Out of step (cannot happen in order; be safe): a fresh snapshot instead.
          revision = null;
          details.resnapshot(unsubscribe);
          return;
        }
        revision = deltaRevision;
        sink.enqueue(head);
      },
      unavailable: (head) => {
        if (mine !== generation) return;
        revision = null;
        lastUnavailable = null;
        sink.enqueue(head);
      },
    };
    const unsubscribe = details.subscribe(file, sessionId, subscriber);
    detail = unsubscribe;
  }

  /** Resolves the focus; while it cannot, waits for the list or the runtimes to change. */
  function resolve(sessionId: string, mine: number): void {
    if (mine !== generation || closed) return;
    const located = locate(sessionId);
    if (located === null) {
      void deps.readSide.ready().then(
        () => resolve(sessionId, mine),
        () => unavailable(sessionId, "error", "The session index is not available"),
      );
      return;
    }
    if ("file" in located) {
      stopWatching();
      follow(sessionId, located.file, mine);
      return;
    }
    unavailable(sessionId, located.reason);
    if (watching.length > 0) return;
    const retry = (): void => {
      if (mine === generation && detail === null) resolve(sessionId, mine);
    };
    watching = [
      deps.listFeed.events$.subscribe((event) => {
        if (event.type === "delta") retry();
      }),
      deps.runtimeHost.events$.subscribe((event) => {
        if (event.type === "runtime_roster" || (event.type === "active_session" && event.sessionId === sessionId)) retry();
      }),
    ];
  }

  return {
    get sessionId() {
      return current;
    },
    set(sessionId) {
      if (closed) return;
      if (sessionId === current) {
        if (sessionId !== null && sessionId !== "") {
          // Again: a fresh snapshot (or the reason it cannot be had).
          generation++;
          detail?.();
          detail = null;
          stopWatching();
          lastUnavailable = null;
          resolve(sessionId, generation);
        }
        return;
      }
      generation++;
      detail?.();
      detail = null;
      stopWatching();
      lastUnavailable = null;
      current = sessionId;
      if (sessionId !== null && sessionId !== "") resolve(sessionId, generation);
    },
    close() {
      closed = true;
      generation++;
      detail?.();
      detail = null;
      stopWatching();
    },
  };
}

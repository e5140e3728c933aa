/**
 * What the read routes and the events socket need from the runtime host (adapters/runtime-host/runtime-host.ts,
 * which satisfies this interface structurally; buildApp passes it). Tests of those routes may inject a
 * scripted view through `buildApp({ runtimeHost })`; `idleRuntimeHost` is a view where nothing runs.
 *
 * Seams the host fills:
 * - `activeWorkers()` → GET /api/health;
 * - `openRuntimes()` → runtime-only sessions at the top of GET /api/pi/sessions, and one `active_session` per
 *   open runtime on every WS /api/pi/events connection (then `runtime_roster`);
 * - `events$` → live messages (runtime_event, extension_ui, extension_error, runtime_removed, active_session
 *   updates, roster changes) fanned out to every events socket, full or compact per the socket's ?sessionId.
 */
import { EMPTY, type Observable } from "rxjs";
import type { LiveStreamState } from "../domain/live/live-stream.ts";
import type { SessionSummary } from "../domain/session-summary.ts";

/** Which runtimes a socket receives in full: all (no ?sessionId), one (?sessionId=id) or none (?sessionId=). */
export type EventFocus = { readonly kind: "all" } | { readonly kind: "one"; readonly sessionId: string | null };

/** Whether a socket with this focus gets full snapshots and unfiltered events for a session. */
export function isFullFor(focus: EventFocus, sessionId: string): boolean {
  return focus.kind === "all" || focus.sessionId === sessionId;
}

/** `?sessionId` → focus: absent selects all runtimes (protocol compatibility), empty selects none. */
export function eventFocusOf(sessionId: string | undefined): EventFocus {
  if (sessionId === undefined) return { kind: "all" };
  return { kind: "one", sessionId: sessionId === "" ? null : sessionId };
}

export interface OpenRuntime {
  readonly sessionId: string;
  /** The session file, or null while the runtime has not written one. */
  readonly sessionFile: string | null;
  /** The list row of this runtime (used when the file is not in the persisted list yet). */
  summary(): SessionSummary;
  /** The spec's `Active` snapshot: full (promptQueue items, state) or compact (promptQueue count/held/error). */
  snapshot(full: boolean): unknown;
  /**
   * What the runtime is streaming right now (domain/live/live-stream.ts): a full subscriber arriving while
   * `isLiveStreamActive` gets it as a `stream_snapshot` runtime event after the runtime's `active_session`.
   */
  liveStream(): LiveStreamState;
}

/** One live message for the events sockets. `data(full)` returns null when a compact socket gets nothing. */
export interface RuntimeHostEvent {
  readonly type: string;
  /** The runtime it concerns, or null for messages that go to every socket as they are (e.g. runtime_roster). */
  readonly sessionId: string | null;
  data(full: boolean): unknown;
}

export interface RuntimeHostView {
  /** Worker processes currently alive. */
  activeWorkers(): number;
  /** Open runtimes, in roster order. */
  openRuntimes(): readonly OpenRuntime[];
  readonly events$: Observable<RuntimeHostEvent>;
}

/** A view where nothing runs (tests). */
export const idleRuntimeHost: RuntimeHostView = {
  activeWorkers: () => 0,
  openRuntimes: () => [],
  events$: EMPTY,
};

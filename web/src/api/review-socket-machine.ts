/**
 * The Git review subscription of one folder as a pure state machine: the review events socket
 * (WS /api/pi/review/events?cwd=, spec "Git review routes") and the status fetches it triggers.
 * `step(state, input)` returns the next state and the effects the driver (review-socket.ts) performs: open or close
 * the socket, send a text, schedule or cancel a reconnect, fetch the status.
 *
 * Rules:
 * - The socket carries no status: `review_ready` (after the server's watcher is set up, on every connection) and
 *   `review_change` only say "fetch again". Fetches are coalesced: at most one is in flight, and requests made
 *   meanwhile collapse into one pending fetch that starts when the running one finishes (`fetched`).
 * - `review_unavailable` (not a Git repository, or it disappeared): the socket is closed and never reopened by
 *   itself; one status fetch shows what the folder is now. A later fetch that finds a repository again
 *   (`fetched` with `available: true`) reconnects after the backoff.
 * - `review_watch_error` with `retry: false` (the repository has too many folders to watch): no socket any more,
 *   status on Refresh only (`manual`, with the message in `watchError`);
 * - `review_watch_error` (the server closes with 1011 next), a close or a failure: reconnect after a backoff of
 *   1 s, 2 s, 4 s … capped at 30 s; the attempt count resets when a connection says `review_ready`.
 * - Heartbeat: `{"type":"ping"}` is answered with exactly `{"type":"pong"}`.
 * - Another folder (`cwd`) restarts the subscription for it; without the watch capability (`watch: false`) there
 *   is no socket at all and status is fetched on demand (`refresh`).
 *
 * No clock and no randomness: the driver owns timers and feeds `retry` when the backoff has passed.
 */
import { PONG_TEXT } from "../../../domain/live/live-messages.ts";
import { isRecord } from "../../../domain/transcript/message-content.ts";
import { parseJsonObject } from "./json-object.ts";

export { PONG_TEXT };

export const REVIEW_EVENTS_PATH = "/api/pi/review/events";

/**
 * - `manual`: no socket (the backend cannot watch); status is fetched on demand.
 * - `connecting`: a socket is being opened; `open`: it is open, the server's watcher is not ready yet.
 * - `ready`: the watcher is ready: the status shown follows the folder.
 * - `backoff`: waiting to reconnect; `unavailable`: not a repository (no reconnect); `stopped`: unsubscribed.
 */
export type ReviewPhase = "stopped" | "manual" | "connecting" | "open" | "ready" | "backoff" | "unavailable";

export interface ReviewSocketState {
  phase: ReviewPhase;
  cwd: string;
  /** Failed connections since the last `review_ready`. */
  attempt: number;
  /** Milliseconds until the scheduled reconnect (phase backoff), else null. */
  retryInMs: number | null;
  /** A status fetch is in flight. */
  fetching: boolean;
  /** Another fetch was asked for while one ran: it starts when the running one finishes. */
  fetchPending: boolean;
  /** The last `review_watch_error` message since the last `review_ready`, or null. */
  watchError: string | null;
  /** Texts that were not `{ type }` messages (ignored, counted). */
  malformed: number;
}

export type ReviewSocketInput =
  /** Subscribe to `cwd`: with a socket when the backend watches (`watch`), else fetch once and on demand. */
  | { type: "start"; cwd: string; watch: boolean }
  /** The subscription now follows another folder. */
  | { type: "cwd"; cwd: string }
  | { type: "opened" }
  | { type: "message"; text: string }
  /** The socket closed or failed (also: silent for too long). */
  | { type: "closed" }
  /** The backoff timer fired. */
  | { type: "retry" }
  /** Fetch the status now (the person asked, or an action changed the repository). */
  | { type: "refresh" }
  /** The fetch in flight finished; `available` when it answered (false: not a repository). */
  | { type: "fetched"; available?: boolean }
  | { type: "stop" };

export type ReviewSocketEffect =
  | { type: "connect"; cwd: string }
  | { type: "disconnect" }
  | { type: "send"; text: string }
  | { type: "schedule"; delayMs: number }
  | { type: "cancelSchedule" }
  | { type: "fetch"; cwd: string };

export interface ReviewStep {
  state: ReviewSocketState;
  effects: ReviewSocketEffect[];
}

export interface ReviewBackoff {
  baseMs: number;
  maxMs: number;
}

export const REVIEW_BACKOFF: ReviewBackoff = { baseMs: 1000, maxMs: 30_000 };

/** The delay before reconnect attempt `attempt` (1, 2, …): base · 2^(attempt-1), capped at max. */
export function reviewReconnectDelay(attempt: number, backoff: ReviewBackoff = REVIEW_BACKOFF): number {
  const n = Math.max(1, Math.floor(attempt));
  return Math.min(backoff.maxMs, backoff.baseMs * 2 ** Math.min(n - 1, 30));
}

export function initialReviewSocketState(cwd = ""): ReviewSocketState {
  return { phase: "stopped", cwd, attempt: 0, retryInMs: null, fetching: false, fetchPending: false, watchError: null, malformed: 0 };
}

/** A server message: `{ type, data? }`, or null when the text is not one. */
export function decodeReviewMessage(text: string): { type: string; data?: unknown } | null {
  const value = parseJsonObject(text);
  if (value === null) return null;
  const { type } = value;
  if (typeof type !== "string") return null;
  return "data" in value ? { type, data: value["data"] } : { type };
}

function watchErrorText(data: unknown): string {
  const message = isRecord(data) ? data["message"] : undefined;
  return typeof message === "string" && message.trim() !== "" ? message : "The review watcher failed.";
}

/** Asks for a status fetch: starts one, or marks one pending behind the running one. */
function requestFetch(state: ReviewSocketState): ReviewStep {
  if (state.fetching) return { state: { ...state, fetchPending: true }, effects: [] };
  return { state: { ...state, fetching: true }, effects: [{ type: "fetch", cwd: state.cwd }] };
}

function connectNow(state: ReviewSocketState): ReviewStep {
  return { state: { ...state, phase: "connecting", retryInMs: null }, effects: [{ type: "connect", cwd: state.cwd }] };
}

/** Closes the socket and reconnects after the next backoff delay. */
function backOff(state: ReviewSocketState, disconnect: boolean): ReviewStep {
  const attempt = state.attempt + 1;
  const delayMs = reviewReconnectDelay(attempt);
  return {
    state: { ...state, phase: "backoff", attempt, retryInMs: delayMs },
    effects: [...(disconnect ? [{ type: "disconnect" } as const] : []), { type: "schedule", delayMs }],
  };
}

function onMessage(state: ReviewSocketState, text: string): ReviewStep {
  const message = decodeReviewMessage(text);
  if (message === null) return { state: { ...state, malformed: state.malformed + 1 }, effects: [] };
  switch (message.type) {
    case "ping":
      return { state, effects: [{ type: "send", text: PONG_TEXT }] };
    case "review_ready":
      // Catch up with what changed since the last status (also on reconnect).
      return requestFetch({ ...state, phase: "ready", attempt: 0, watchError: null });
    case "review_change":
      return requestFetch(state);
    case "review_unavailable": {
      const fetched = requestFetch({ ...state, phase: "unavailable", retryInMs: null });
      return { state: fetched.state, effects: [{ type: "disconnect" }, ...fetched.effects] };
    }
    case "review_watch_error": {
      const watchError = watchErrorText(message.data);
      // `retry: false`: the repository cannot be watched (too many folders, the system's watch limit): no reconnect,
      // status on Refresh only (a reconnect would take the watches again). Fetch once to be current.
      if (isRecord(message.data) && message.data["retry"] === false) {
        const fetched = requestFetch({ ...state, phase: "manual", retryInMs: null, watchError });
        return { state: fetched.state, effects: [{ type: "disconnect" }, ...fetched.effects] };
      }
      // The server closes with 1011 next: reconnect after the backoff without waiting for the close.
      return backOff({ ...state, watchError }, true);
    }
    default:
      return { state, effects: [] };
  }
}

function live(phase: ReviewPhase): boolean {
  return phase === "connecting" || phase === "open" || phase === "ready";
}

export function step(state: ReviewSocketState, input: ReviewSocketInput): ReviewStep {
  switch (input.type) {
    case "start": {
      if (state.phase !== "stopped") return { state, effects: [] };
      const base: ReviewSocketState = { ...state, cwd: input.cwd, attempt: 0, retryInMs: null, watchError: null };
      // With a socket, review_ready brings the first fetch; without one, fetch now.
      if (input.watch) return connectNow(base);
      return requestFetch({ ...base, phase: "manual" });
    }
    case "cwd": {
      if (input.cwd === state.cwd) return { state, effects: [] };
      const moved: ReviewSocketState = { ...state, cwd: input.cwd, attempt: 0, retryInMs: null, watchError: null };
      if (state.phase === "stopped") return { state: moved, effects: [] };
      if (state.phase === "manual") return requestFetch(moved);
      const reopened = connectNow(moved);
      const closing: ReviewSocketEffect[] = state.phase === "backoff" ? [{ type: "cancelSchedule" }] : [{ type: "disconnect" }];
      return { state: reopened.state, effects: [...closing, ...reopened.effects] };
    }
    case "opened":
      if (state.phase !== "connecting") return { state, effects: [] };
      return { state: { ...state, phase: "open" }, effects: [] };
    case "message":
      if (state.phase !== "open" && state.phase !== "ready") return { state, effects: [] };
      return onMessage(state, input.text);
    case "closed":
      if (!live(state.phase)) return { state, effects: [] };
      return backOff(state, false);
    case "retry":
      if (state.phase !== "backoff") return { state, effects: [] };
      return connectNow(state);
    case "refresh":
      if (state.phase === "stopped") return { state, effects: [] };
      return requestFetch(state);
    case "fetched": {
      if (!state.fetching) return { state, effects: [] };
      // The pending fetch (if any) starts now: still one in flight.
      const settled: ReviewSocketState = { ...state, fetching: state.fetchPending, fetchPending: false };
      const effects: ReviewSocketEffect[] = state.fetchPending ? [{ type: "fetch", cwd: state.cwd }] : [];
      // A repository again where the watcher said there was none: subscribe again (after the backoff).
      if (state.phase === "unavailable" && input.available === true) {
        const again = backOff(settled, false);
        return { state: again.state, effects: [...effects, ...again.effects] };
      }
      return { state: settled, effects };
    }
    case "stop": {
      if (state.phase === "stopped") return { state, effects: [] };
      const effects: ReviewSocketEffect[] = [];
      if (state.phase === "backoff") effects.push({ type: "cancelSchedule" });
      if (live(state.phase)) effects.push({ type: "disconnect" });
      return { state: { ...state, phase: "stopped", retryInMs: null, fetchPending: false }, effects };
    }
    default:
      return { state, effects: [] };
  }
}

/** What the pane says about the link: live, first connection, reconnecting (the view may be stale), and the rest. */
export type ReviewLink = "live" | "connecting" | "reconnecting" | "manual" | "unavailable" | "stopped";

export function reviewLinkOf(state: ReviewSocketState): ReviewLink {
  switch (state.phase) {
    case "ready":
      return "live";
    case "connecting":
    case "open":
      return state.attempt > 0 ? "reconnecting" : "connecting";
    case "backoff":
      return "reconnecting";
    default:
      return state.phase;
  }
}

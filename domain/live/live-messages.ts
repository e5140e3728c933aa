/**
 * The read side on the events socket (WS /api/pi/events), beyond the spec's runtime messages: message types and
 * their `data`, shared by the server (api/events.routes.ts) and the client (web/src/api, stores). Their
 * schemas, and those of every other message in both directions, are in domain/contract/events-socket.ts
 * (which proves these types equal to them).
 *
 * Every message is `{ type, data?, seq }`. `seq` numbers the messages of one *stream* (from 1); a stream
 * outlives its socket for a while, so a client that reconnects with `?stream=<id>&after=<last seq it applied>`
 * receives exactly what it missed. The first message of every connection is `hello` with `seq: 0` (outside the
 * numbering) and the server run's `epoch`: it names the stream and says whether the connection resumed it. A fresh stream starts with
 * snapshots (runtimes, the session list, the focused session); a resumed one continues after `after`.
 *
 * Read models on the stream, each a snapshot then deltas:
 * - the session list (every connection): `session_list`, then `session_list_delta` (domain/live/session-list.ts);
 * - the focused session (`?sessionId=` or a `focus` message): `session_loading` while a large file is read,
 *   `session_snapshot` (in chunks of entries), then `session_delta` (header changes and transcript deltas:
 *   domain/transcript/transcript-delta.ts, entries in their wire form: domain/transcript/transcript-wire.ts), or
 *   `session_unavailable`;
 * - runtime snapshots and events as the spec lists them, with streamed replies and tool output as deltas
 *   (domain/live/live-stream.ts).
 */
import type { SessionDetailSession } from "../session-detail.ts";
import type { TranscriptDelta } from "../transcript/transcript-delta.ts";
import type { WireTranscriptEntry } from "../transcript/transcript-wire.ts";
import type { SessionListDelta, SessionListSnapshot } from "./session-list.ts";

export const EVENTS_PATH = "/api/pi/events";
/** The exact text of a heartbeat reply (the server compares text). */
export const PONG_TEXT = '{"type":"pong"}';

/** `seq` of messages outside a stream's numbering (`hello`). */
export const UNNUMBERED_SEQ = 0;

export interface HelloData {
  /** The stream this connection carries (resume it with `?stream=<id>&after=<seq>`). */
  readonly stream: string;
  /** True when the connection continues the stream asked for; false for a fresh stream (snapshots follow). */
  readonly resumed: boolean;
  /**
   * The seq the client will have reached once it received what the stream holds for it now (messages written and
   * waiting; a chunked snapshot counts as one): a resumed client is `latestSeq - after` messages behind.
   */
  readonly latestSeq: number;
}

export interface SessionLoadingData {
  readonly sessionId: string;
  readonly loadedBytes: number;
  readonly totalBytes: number;
}

/**
 * One chunk of a session's detail: chunks come in order (`offset` 0 first, with `session`); the snapshot is
 * complete with the chunk that has `done: true`. Entries are in wire form.
 */
export interface SessionSnapshotData {
  readonly sessionId: string;
  /** The detail's revision on this server (deltas follow from it). */
  readonly revision: number;
  /** The session file. */
  readonly path: string;
  /** The header fields (first chunk only). */
  readonly session?: SessionDetailSession;
  /** The active branch's leaf entry id (first chunk only). */
  readonly leafId?: string | null;
  /** Position of this chunk's first entry. */
  readonly offset: number;
  /** Entries in the whole snapshot. */
  readonly total: number;
  readonly entries: WireTranscriptEntry[];
  readonly done: boolean;
}

export interface SessionDeltaData {
  readonly sessionId: string;
  /** The revision this delta applies to, and the one it makes. */
  readonly base: number;
  readonly revision: number;
  /** The header fields, when they changed. */
  readonly session?: SessionDetailSession;
  /** The leaf entry id, when it changed. */
  readonly leafId?: string | null;
  /** The transcript's changes, when there are any. */
  readonly transcript?: TranscriptDelta<WireTranscriptEntry>;
}

export type SessionUnavailableReason =
  /** No session with this id is listed or open. */
  | "not-found"
  /** An open runtime whose file is not written yet: its snapshot follows once it is. */
  | "unsaved"
  /** The file was deleted or stopped being a session. */
  | "gone"
  /** Reading the file failed (`message` says why). */
  | "error";

export interface SessionUnavailableData {
  readonly sessionId: string;
  readonly reason: SessionUnavailableReason;
  readonly message: string;
}

/** Server → client `type` → `data`, for the read-side messages. */
export interface LiveMessageMap {
  hello: HelloData;
  session_list: SessionListSnapshot;
  session_list_delta: SessionListDelta;
  session_loading: SessionLoadingData;
  session_snapshot: SessionSnapshotData;
  session_delta: SessionDeltaData;
  session_unavailable: SessionUnavailableData;
}

export type LiveMessageType = keyof LiveMessageMap;

/** Client → server messages and their parsing: domain/contract/events-socket.ts (ClientMessage). */

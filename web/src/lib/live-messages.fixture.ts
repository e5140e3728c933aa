/**
 * Test support for the read side on the events socket: the messages the server sends (domain/live/live-messages.ts)
 * built from plain TranscriptEntry lists, as the server builds them (entries packed, snapshots in chunks), and
 * envelopes with seq and epoch for the connection store.
 */
import type {
  SessionDeltaData,
  SessionSnapshotData,
  SessionUnavailableData,
  SessionUnavailableReason,
} from "../../../domain/live/live-messages.ts";
import type { SessionIndexStatus, SessionListDelta, SessionListSnapshot, SessionRow } from "../../../domain/live/session-list.ts";
import type { SessionDetailSession } from "../../../domain/session-detail.ts";
import { diffTranscript } from "../../../domain/transcript/transcript-delta.ts";
import type { TranscriptEntry } from "../../../domain/transcript/transcript-types.ts";
import { packEntry } from "../../../domain/transcript/transcript-wire.ts";
import type { EventEnvelope } from "../api/events-machine.ts";

export const T = "2026-11-30T10:00:00.000Z";

export function detailSession(id: string, extra: Partial<SessionDetailSession> = {}): SessionDetailSession {
  return {
    id,
    path: `/agent/sessions/${id}.jsonl`,
    cwd: "/w/project",
    isSubagentSession: false,
    firstMessage: "Hello",
    messageCount: 2,
    sessionFile: `/agent/sessions/${id}.jsonl`,
    contextTokens: 2,
    modified: T,
    created: T,
    research: null,
    model: null,
    thinkingLevel: null,
    usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: 0 },
    fileVersion: 3,
    readOnly: null,
    ...extra,
  };
}

/** A snapshot of `entries` at `revision`, in chunks of `chunkSize` entries (one empty chunk for no entries). */
export function snapshotChunks(
  session: SessionDetailSession,
  entries: readonly TranscriptEntry[],
  revision = 1,
  chunkSize = 1000,
  leafId: string | null = entries.at(-1)?.id ?? null,
): SessionSnapshotData[] {
  const chunks: SessionSnapshotData[] = [];
  for (let offset = 0; offset === 0 || offset < entries.length; offset += chunkSize) {
    const part = entries.slice(offset, offset + chunkSize);
    chunks.push({
      sessionId: session.id,
      revision,
      path: session.path,
      ...(offset === 0 ? { session, leafId } : {}),
      offset,
      total: entries.length,
      entries: part.map(packEntry),
      done: offset + chunkSize >= entries.length,
    });
  }
  return chunks;
}

/** The delta from `before` to `after` (packed), from revision `base` to `base + 1`. */
export function sessionDelta(
  sessionId: string,
  before: readonly TranscriptEntry[],
  after: readonly TranscriptEntry[],
  base: number,
  extra: Partial<Pick<SessionDeltaData, "session" | "leafId">> = {},
): SessionDeltaData {
  const transcript = diffTranscript(before, after);
  return {
    sessionId,
    base,
    revision: base + 1,
    ...extra,
    ...(transcript !== null
      ? {
          transcript: {
            ...(transcript.replaced ? { replaced: transcript.replaced.map(([i, e]) => [i, packEntry(e)] as const) } : {}),
            ...(transcript.truncate !== undefined ? { truncate: transcript.truncate } : {}),
            ...(transcript.appended ? { appended: transcript.appended.map(packEntry) } : {}),
          },
        }
      : {}),
  };
}

export function unavailable(sessionId: string, reason: SessionUnavailableReason, message = `Session ${reason}`): SessionUnavailableData {
  return { sessionId, reason, message };
}

export function indexStatus(extra: Partial<SessionIndexStatus> = {}): SessionIndexStatus {
  return { filesOnDisk: 3, indexed: 3, invalid: 0, invalidPaths: [], ready: true, verified: true, ...extra };
}

export function listSnapshot(
  sessions: SessionRow[],
  status: SessionIndexStatus = indexStatus({ filesOnDisk: sessions.length, indexed: sessions.length }),
  revision = 1,
): SessionListSnapshot {
  return { revision, sessions, status };
}

export function listDelta(
  upserted: SessionRow[],
  removed: string[],
  revision: number,
  status: SessionIndexStatus = indexStatus(),
): SessionListDelta {
  return { revision, upserted, removed, status };
}

/** A server message stream: hello, then numbered envelopes. */
export class ScriptedStream {
  private seq = 0;
  constructor(
    readonly stream = "stream-1",
    readonly epoch = "epoch-1",
  ) {}

  hello(resumed = false, latestSeq = 0): EventEnvelope {
    return { type: "hello", data: { stream: this.stream, resumed, latestSeq }, seq: 0, epoch: this.epoch };
  }

  next(type: string, data?: unknown): EventEnvelope {
    this.seq += 1;
    return data === undefined ? { type, seq: this.seq, epoch: this.epoch } : { type, data, seq: this.seq, epoch: this.epoch };
  }
}

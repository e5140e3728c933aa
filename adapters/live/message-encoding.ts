/**
 * Events-socket messages as bytes (domain/live/live-messages.ts is the contract): a message *head* is the UTF-8
 * JSON `{"type":…,"data":…` without its closing brace; the stream that sends it appends `,"seq":N}`
 * (api/events/event-stream.ts). Heads are made once and shared by every socket that sends them. Used on the main
 * thread (runtime and list messages) and in the detail worker (session snapshots and deltas).
 */
import type { SessionDeltaData } from "../../domain/live/live-messages.ts";
import type { SessionDetailSession } from "../../domain/session-detail.ts";
import { mapTranscriptDelta, type TranscriptDelta } from "../../domain/transcript/transcript-delta.ts";
import { packEntry } from "../../domain/transcript/transcript-wire.ts";
import type { TranscriptEntry } from "../../domain/transcript/transcript-types.ts";

/**
 * `{"type":…,"data":…` as UTF-8: the serialized message without `seq` and the closing brace. JSON keeps key
 * order, so head + `,"seq":N}` equals `JSON.stringify({ type, data, seq })`.
 */
export function encodeMessageHead(type: string, data?: unknown): Buffer {
  const json = JSON.stringify(data === undefined ? { type } : { type, data });
  return Buffer.from(json, "utf8").subarray(0, -1);
}

/** Bytes of entries per `session_snapshot` chunk. */
export const SNAPSHOT_CHUNK_BYTES = 256 * 1024;

export interface SnapshotSource {
  readonly sessionId: string;
  readonly revision: number;
  readonly path: string;
  readonly session: SessionDetailSession;
  readonly leafId: string | null;
  readonly entries: readonly TranscriptEntry[];
}

/** The `session_snapshot` chunks of a detail, in order (entries in wire form); at least one. */
export function* snapshotChunks(source: SnapshotSource, chunkBytes = SNAPSHOT_CHUNK_BYTES): Generator<Buffer> {
  const { entries } = source;
  const total = entries.length;
  const prefix = `{"type":"session_snapshot","data":{"sessionId":${JSON.stringify(source.sessionId)},"revision":${source.revision},"path":${JSON.stringify(source.path)}`;
  let offset = 0;
  do {
    const start = offset;
    const parts: string[] = [];
    let bytes = 0;
    while (offset < total && (parts.length === 0 || bytes < chunkBytes)) {
      const json = JSON.stringify(packEntry(entries[offset] as TranscriptEntry));
      parts.push(json);
      bytes += json.length;
      offset++;
    }
    const header = start === 0 ? `,"session":${JSON.stringify(source.session)},"leafId":${JSON.stringify(source.leafId)}` : "";
    const done = offset >= total;
    yield Buffer.from(`${prefix}${header},"offset":${start},"total":${total},"entries":[${parts.join(",")}],"done":${done}}`, "utf8");
  } while (offset < total);
}

export interface DeltaSource {
  readonly sessionId: string;
  readonly base: number;
  readonly revision: number;
  readonly session?: SessionDetailSession;
  readonly leafId?: string | null;
  readonly transcript?: TranscriptDelta;
}

/** The `session_delta` message of a detail delta (entries in wire form). */
export function deltaHead(source: DeltaSource): Buffer {
  const data: SessionDeltaData = {
    sessionId: source.sessionId,
    base: source.base,
    revision: source.revision,
    ...(source.session !== undefined ? { session: source.session } : {}),
    ...(source.leafId !== undefined ? { leafId: source.leafId } : {}),
    ...(source.transcript !== undefined ? { transcript: mapTranscriptDelta(source.transcript, packEntry) } : {}),
  };
  return encodeMessageHead("session_delta", data);
}

/**
 * The session decoder: complete JSONL lines of a pi session file in, `LogRecord`s out. Pure and incremental:
 * the state after some lines is plain JSON (checkpointable), and decoding the rest of the file from it gives
 * the same records as decoding the whole file at once, however the lines are split into batches.
 *
 * Rules (pi 0.74.2 `loadEntriesFromFile`, `migrateToCurrentVersion`):
 * - Blank (whitespace-only) lines are skipped but counted for the 1-based line numbers.
 * - A line that is not valid JSON, or is JSON but not an object, is a `malformed` record (counted).
 * - The first line that parses as JSON is the header. If it is not `{type:"session", id: string}` the file
 *   is not a session file: that line and every later non-blank line is a `malformed` record.
 * - Versions 1 and 2 (a missing `version` is 1) are migrated to 3 in memory; the emitted header says 3.
 *   v1 -> v2: entries get `id`/`parentId` as a linear chain. pi's ids are random; ours are deterministic
 *   (see deterministic-id.ts) from the session id and the entry's index among the parsed lines, so every
 *   read yields the same ids. A compaction's `firstKeptEntryIndex` (an index into the parsed JSON lines,
 *   header = 0) becomes `firstKeptEntryId` when it names an earlier entry (or the compaction itself) and is
 *   deleted, as in pi. v2 -> v3: message role `hookMessage` becomes `custom`.
 * - Entries of unknown type pass through unchanged. A later `type:"session"` line is ignored by pi (no id,
 *   not in the tree); here it is a `malformed` record ("duplicate session header").
 *
 * Deliberate differences from pi: a JSON array or primitive after the header is malformed here (pi keeps
 * arrays as entries, with a v1 id, and crashes on primitives in v1 files); a compaction pointing forward keeps
 * no `firstKeptEntryId` (pi sets it to `undefined`); the torn last line is held back (pi parses it if it
 * happens to be complete JSON). The pi collision check in migrateV1ToV2 is a no-op; ours is real.
 *
 * Cost: one JSON.parse per line; v2/v3 entries are emitted as the parsed object itself (v1 entries and the
 * header are migrated in place on that fresh object), and the state is copied at most once per batch.
 */
import { deterministicEntryId } from "./deterministic-id.ts";
import { CURRENT_SESSION_VERSION, type LogRecord, type SessionEntry, type SessionHeader } from "./session-log.ts";
import { splitCompleteLines } from "./jsonl-lines.ts";

/** Which migrations apply to the entries of this file. */
export type DecoderMigration = "v1" | "v2" | "none";

export interface DecoderState {
  /** Physical lines consumed (blank and malformed lines included); the next line's number is `lines + 1`. */
  readonly lines: number;
  /** Malformed records emitted so far. */
  readonly malformed: number;
  /** Lines that JSON.parse accepted so far (the index space of `firstKeptEntryIndex`; the header is 0). */
  readonly parsed: number;
  readonly phase: "awaiting-header" | "session" | "not-session";
  /** The header's session id, once a valid header was seen. */
  readonly sessionId: string | null;
  /** The version written in the header (missing = 1) before migration; null without one or if not numeric. */
  readonly version: number | null;
  readonly migration: DecoderMigration;
  /** v1 only: the id assigned to each parsed line by its index (null for the header and non-entries). */
  readonly v1Ids: readonly (string | null)[];
  /** v1 only: the last assigned id, the parent of the next entry. */
  readonly v1LastId: string | null;
}

export function initialDecoderState(): DecoderState {
  return {
    lines: 0,
    malformed: 0,
    parsed: 0,
    phase: "awaiting-header",
    sessionId: null,
    version: null,
    migration: "none",
    v1Ids: [],
    v1LastId: null,
  };
}

const NOT_JSON = "invalid JSON";
/** The reason of a malformed record that is JSON but not an object (a line pi would take for an id-less entry). */
export const NOT_OBJECT = "not a JSON object";
const NOT_SESSION = "not a session file";
const BAD_HEADER = 'first JSON line is not a session header ({type:"session", id: string})';
const DUPLICATE_HEADER = "duplicate session header";

function isBlank(line: string): boolean {
  return line.trim() === "";
}

type JsonObject = Record<string, unknown>;

/** Version number as pi compares it (`header.version ?? 1`, coerced by < and >=). */
function effectiveVersion(raw: unknown): number {
  return raw === undefined || raw === null ? 1 : Number(raw);
}

/** v2 -> v3 on a fresh parsed entry: message role `hookMessage` becomes `custom` (in place). */
function migrateHookMessage(entry: JsonObject): void {
  if (entry["type"] !== "message") return;
  const message = entry["message"];
  if (typeof message === "object" && message !== null && (message as JsonObject)["role"] === "hookMessage") {
    (message as JsonObject)["role"] = "custom";
  }
}

/** Decodes complete lines that follow the ones already decoded. Pure: returns a new state. */
export function decodeLines(state: DecoderState, lines: readonly string[]): { state: DecoderState; records: LogRecord[] } {
  if (lines.length === 0) return { state, records: [] };
  const records: LogRecord[] = [];
  let lineNo = state.lines;
  let malformed = state.malformed;
  let parsed = state.parsed;
  let phase = state.phase;
  let sessionId = state.sessionId;
  let version = state.version;
  let migration = state.migration;
  let v1LastId = state.v1LastId;
  // v1 bookkeeping is copied once per batch, on first use.
  const book: { ids: (string | null)[] | null; taken: Set<string> } = { ids: null, taken: new Set() };
  const v1 = (): (string | null)[] => {
    if (book.ids === null) {
      book.ids = state.v1Ids.slice();
      for (const id of book.ids) if (id !== null) book.taken.add(id);
    }
    return book.ids;
  };
  const isTaken = (id: string): boolean => book.taken.has(id);

  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    lineNo++;
    if (phase === "not-session") {
      if (isBlank(line)) continue;
      malformed++;
      records.push({ kind: "malformed", line: lineNo, reason: NOT_SESSION });
      continue;
    }
    if (line.length === 0) continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      if (isBlank(line)) continue;
      malformed++;
      records.push({ kind: "malformed", line: lineNo, reason: NOT_JSON });
      continue;
    }
    const index = parsed++;
    const isObject = typeof value === "object" && value !== null && !Array.isArray(value);

    if (phase === "awaiting-header") {
      const header = value as JsonObject;
      if (!isObject || header["type"] !== "session" || typeof header["id"] !== "string") {
        phase = "not-session";
        malformed++;
        records.push({ kind: "malformed", line: lineNo, reason: BAD_HEADER });
        continue;
      }
      phase = "session";
      sessionId = header["id"] as string;
      const v = effectiveVersion(header["version"]);
      version = Number.isFinite(v) ? v : null;
      migration = v < 2 ? "v1" : v < 3 ? "v2" : "none";
      if (migration !== "none") header["version"] = CURRENT_SESSION_VERSION;
      if (migration === "v1") v1().push(null);
      records.push({ kind: "header", line: lineNo, header: header as unknown as SessionHeader });
      continue;
    }

    if (!isObject) {
      if (migration === "v1") v1().push(null);
      malformed++;
      records.push({ kind: "malformed", line: lineNo, reason: NOT_OBJECT });
      continue;
    }
    const entry = value as JsonObject;
    if (entry["type"] === "session") {
      if (migration === "v1") v1().push(null);
      malformed++;
      records.push({ kind: "malformed", line: lineNo, reason: DUPLICATE_HEADER });
      continue;
    }
    if (migration === "v1") {
      const ids = v1();
      const id = deterministicEntryId(sessionId as string, index, isTaken);
      ids.push(id);
      book.taken.add(id);
      entry["id"] = id;
      entry["parentId"] = v1LastId;
      v1LastId = id;
      if (entry["type"] === "compaction" && typeof entry["firstKeptEntryIndex"] === "number") {
        const target = entry["firstKeptEntryIndex"];
        const targetId = Number.isInteger(target) && target >= 0 && target < ids.length ? ids[target] : null;
        if (typeof targetId === "string") entry["firstKeptEntryId"] = targetId;
        delete entry["firstKeptEntryIndex"];
      }
      migrateHookMessage(entry);
    } else if (migration === "v2") {
      migrateHookMessage(entry);
    }
    records.push({ kind: "entry", line: lineNo, entry: entry as unknown as SessionEntry });
  }

  const next: DecoderState = {
    lines: lineNo,
    malformed,
    parsed,
    phase,
    sessionId,
    version,
    migration,
    v1Ids: book.ids ?? state.v1Ids,
    v1LastId,
  };
  return { state: next, records };
}

/** Whole-text convenience: split + decode from the initial state; `rest` is the held-back torn tail. */
export function decodeSessionText(text: string): { state: DecoderState; records: LogRecord[]; rest: string } {
  const { lines, rest } = splitCompleteLines(text);
  const { state, records } = decodeLines(initialDecoderState(), lines);
  return { state, records, rest };
}

export function decoderStats(state: DecoderState): {
  lines: number;
  malformed: number;
  version: number | null;
  sessionId: string | null;
  isSession: boolean;
} {
  return {
    lines: state.lines,
    malformed: state.malformed,
    version: state.version,
    sessionId: state.sessionId,
    isSession: state.phase === "session",
  };
}

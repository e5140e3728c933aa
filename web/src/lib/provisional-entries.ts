/**
 * The user's own prompt, shown at once. pi announces every user message it takes with runtime_event
 * message_start / message_end (the event's `message` is pi's UserMessage: role "user", content, timestamp),
 * but it writes a new session's file only with the first assistant message, so the persisted transcript (the
 * session's detail on the events socket) has the prompt only once the first reply finished. Until the detail
 * holds it, the prompt is a provisional transcript entry (id `provisional:…`) shown after the persisted ones.
 *
 * The persisted entry replaces it by pi's message timestamp (`messageTimestamp`, the same number in the event
 * and in the file): `withProvisional` leaves out every provisional entry the detail already has, so the two
 * never show together. Plain JSON state, pure functions; the runtimes store keeps one state per session.
 */
import type { TranscriptBlock, TranscriptEntry, UserMessageTranscriptEntry } from "../../../domain/transcript/transcript-types.ts";

export const PROVISIONAL_PREFIX = "provisional:";

export interface ProvisionalItem {
  /** Arrival order within the session (for dropping what an ended run left behind). */
  seq: number;
  entry: UserMessageTranscriptEntry;
}

export interface ProvisionalState {
  items: ProvisionalItem[];
  /** The last `seq` handed out. */
  count: number;
}

export const EMPTY_PROVISIONAL: ProvisionalState = { items: [], count: 0 };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Whether an entry is a provisional one (it has no session entry yet: no fork, reset or edit). */
export function isProvisionalEntry(entry: { id: string }): boolean {
  return entry.id.startsWith(PROVISIONAL_PREFIX);
}

/** A user message of a runtime event as a transcript entry with `id`; null when it is not one (or has no time). */
export function userEntryFromMessage(id: string, message: unknown): UserMessageTranscriptEntry | null {
  if (!isRecord(message) || message["role"] !== "user") return null;
  const time = message["timestamp"];
  if (typeof time !== "number" || !Number.isFinite(time)) return null;
  const content = message["content"];
  const blocks: TranscriptBlock[] = [];
  if (typeof content === "string") blocks.push({ type: "text", text: content });
  else if (Array.isArray(content)) {
    for (const block of content) {
      if (!isRecord(block)) continue;
      if (block["type"] === "text" && typeof block["text"] === "string") blocks.push({ type: "text", text: block["text"] });
      else if (block["type"] === "image" && typeof block["data"] === "string" && typeof block["mimeType"] === "string") {
        blocks.push({ type: "image", mimeType: block["mimeType"], data: block["data"] });
      }
    }
  }
  const text = blocks.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("\n");
  const iso = new Date(time).toISOString();
  return {
    id,
    type: "message",
    role: "user",
    timestamp: iso,
    rolloutFeedback: "",
    rolloutFeedbackText: "",
    text,
    blocks,
    copyText: text,
    messageTimestamp: time,
  };
}

/** Whether the persisted entries hold the user message a provisional entry stands for. */
function persistedIn(entry: UserMessageTranscriptEntry, persisted: readonly TranscriptEntry[]): boolean {
  return persisted.some(
    (other) =>
      other.type === "message" && other.role === "user" && !isProvisionalEntry(other) && other.messageTimestamp === entry.messageTimestamp,
  );
}

/**
 * The next provisional state for a pi runtime event of `sessionId`: message_start and message_end of a user
 * message add it (once: the end of a message already shown updates it in place). Other events change nothing.
 */
export function nextProvisional(
  state: ProvisionalState,
  sessionId: string,
  event: { type: string; [key: string]: unknown },
): ProvisionalState {
  if (event.type !== "message_start" && event.type !== "message_end") return state;
  const seq = state.count + 1;
  const entry = userEntryFromMessage(`${PROVISIONAL_PREFIX}${sessionId}:${seq}`, event["message"]);
  if (entry === null) return state;
  const index = state.items.findIndex((item) => item.entry.messageTimestamp === entry.messageTimestamp);
  if (index === -1) return { items: [...state.items, { seq, entry }], count: seq };
  const existing = state.items[index];
  if (existing === undefined || existing.entry.text === entry.text) return state;
  const items = state.items.map((item, i) => (i === index ? { seq: item.seq, entry: { ...entry, id: item.entry.id } } : item));
  return { ...state, items };
}

/** Whether the persisted entries hold an assistant message pi started after the user message. */
function answeredAfter(entry: UserMessageTranscriptEntry, persisted: readonly TranscriptEntry[]): boolean {
  return persisted.some(
    (other) => other.type === "message" && other.role === "assistant" && other.messageTimestamp > entry.messageTimestamp,
  );
}

/**
 * Drops the provisional prompts the persisted entries now hold. `endedRunSeq` (the last `seq` when a run
 * ended, applied to the transcripts that follow) also drops the prompts up to it that the file passed over:
 * pi saved an answer started after them but not them (they are not on this branch, e.g. the worker was
 * replaced), so showing them would mislead. A transcript read too early has no such answer and drops nothing.
 */
export function settleProvisional(
  state: ProvisionalState,
  persisted: readonly TranscriptEntry[],
  endedRunSeq: number | null = null,
): ProvisionalState {
  const items = state.items.filter((item) => {
    if (persistedIn(item.entry, persisted)) return false;
    return endedRunSeq === null || item.seq > endedRunSeq || !answeredAfter(item.entry, persisted);
  });
  return items.length === state.items.length ? state : { ...state, items };
}

/** Drops a session's provisional prompts up to `seq` (a run ended in a session nobody shows). */
export function dropProvisional(state: ProvisionalState, upToSeq: number): ProvisionalState {
  const items = state.items.filter((item) => item.seq > upToSeq);
  return items.length === state.items.length ? state : { ...state, items };
}

/** The transcript to show: the persisted entries, then the provisional prompts they do not hold yet. */
export function withProvisional(persisted: TranscriptEntry[], provisional: readonly ProvisionalItem[]): TranscriptEntry[] {
  if (provisional.length === 0) return persisted;
  const pending = provisional.filter((item) => !persistedIn(item.entry, persisted)).map((item) => item.entry);
  return pending.length === 0 ? persisted : [...persisted, ...pending];
}

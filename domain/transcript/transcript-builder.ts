/**
 * Builds the transcript of one root-to-leaf path, one session entry at a time. The same `appendToTranscript`
 * serves the full build of a path and the incremental extension of the active branch (the projection calls
 * it on an Immer draft), so both give identical results by construction.
 *
 * Layout: each assistant message entry is followed by one `tool` entry per tool call, in content order;
 * a later toolResult completes the pending tool entry in place. Per appended entry the work is O(size of
 * that entry): pending calls are found through `pendingToolIndexByCallId`, which only holds unanswered calls,
 * and entries are stored in a chunked list (domain/chunked-collections.ts: under Immer an append copies one
 * chunk and the short chunk array, not the whole transcript). Read the entries with `transcriptEntries`.
 */
import { emptyChunkedList, LIST_CHUNK_SIZE, listAt, listPush, listToArray, type ChunkedList } from "../chunked-collections.ts";
import type { SessionEntry } from "../session-log.ts";
import {
  assistantMessageEntry,
  bashEntry,
  branchSummaryEntry,
  compactionEntry,
  customMessageEntry,
  customMessageEntryOf,
  modelChangeEntry,
  thinkingLevelChangeEntry,
  usageEntry,
  userMessageEntry,
} from "./entry-mapping.ts";
import { isRecord, numberField, stringField, toolCallBlocks } from "./message-content.ts";
import { isSystemPromptCustomEntry, isSystemPromptEntry, systemPromptTranscriptEntry, type SystemPromptSnapshot } from "./system-prompt.ts";
import { applyContextEdit, readContextEdit } from "./context-edit.ts";
import { emptyPiSystemState, piSystemMessageEntry, resetPiSystemState, type PiSystemState } from "./system-message.ts";
import { completeToolEntry, orphanToolEntry, pendingToolEntry } from "./tool-entry.ts";
import type { TranscriptEntry } from "./transcript-types.ts";

/** Transcript entries per chunk. */
export const TRANSCRIPT_CHUNK_SIZE = LIST_CHUNK_SIZE;

export interface TranscriptBuildState {
  /** The transcript in order (chunks of TRANSCRIPT_CHUNK_SIZE). */
  entries: ChunkedList<TranscriptEntry>;
  /** toolCallId → position in the transcript of the unanswered tool entry for that call (latest call wins). */
  pendingToolIndexByCallId: Record<string, number>;
  /** The latest valid system-prompt snapshot on the path (Leyline's `leyline-system-prompt` entries). */
  systemPrompt: SystemPromptSnapshot | null;
  /** The prompt sections and tools pi 1.x's system messages on the path built (system-message.ts). */
  piSystem: PiSystemState;
  /** Entries of a known type whose shape was unusable (skipped). */
  anomalies: number;
}

export function emptyTranscriptBuild(): TranscriptBuildState {
  return { entries: emptyChunkedList(), pendingToolIndexByCallId: {}, systemPrompt: null, piSystem: emptyPiSystemState(), anomalies: 0 };
}

function pushEntry(state: TranscriptBuildState, entry: TranscriptEntry): void {
  listPush(state.entries, entry);
}

/** The transcript entry at a position (undefined out of range; on a draft, a draft that may be mutated). */
export function transcriptEntryAt(state: TranscriptBuildState, position: number): TranscriptEntry | undefined {
  return listAt(state.entries, position);
}

/** Number of transcript entries. */
export function transcriptLength(state: TranscriptBuildState): number {
  return state.entries.length;
}

/** The transcript entries in order (a new array). */
export function transcriptEntries(state: TranscriptBuildState): TranscriptEntry[] {
  return listToArray(state.entries);
}

function appendMessage(state: TranscriptBuildState, entry: SessionEntry, message: Record<string, unknown>): void {
  switch (message["role"]) {
    case "user":
      pushEntry(state, userMessageEntry(entry, message));
      return;
    case "assistant": {
      pushEntry(state, assistantMessageEntry(entry, message));
      for (const call of toolCallBlocks(message["content"])) {
        state.pendingToolIndexByCallId[call.id] = state.entries.length;
        pushEntry(state, pendingToolEntry(entry, call));
      }
      return;
    }
    case "toolResult": {
      const callId = stringField(message, "toolCallId");
      const pendingIndex = state.pendingToolIndexByCallId;
      const index = callId !== undefined && Object.hasOwn(pendingIndex, callId) ? pendingIndex[callId] : undefined;
      const pending = index === undefined ? undefined : transcriptEntryAt(state, index);
      if (callId !== undefined && pending !== undefined && pending.type === "tool" && pending.status === "pending") {
        completeToolEntry(pending, entry, message);
        delete state.pendingToolIndexByCallId[callId];
      } else {
        pushEntry(state, orphanToolEntry(entry, message));
      }
      return;
    }
    case "bashExecution":
      pushEntry(state, bashEntry(entry, message));
      return;
    case "custom":
      pushEntry(state, customMessageEntry(entry, message, numberField(message, "timestamp") ?? 0));
      return;
    case "system":
      pushEntry(state, piSystemMessageEntry(entry, message, state.piSystem));
      return;
    default:
      // branchSummary / compactionSummary exist only in memory (their entries are mapped instead); unknown roles are skipped.
      return;
  }
}

/** Appends the transcript entries for `entry`, the next entry on the path (mutates `state`; works on drafts). */
export function appendToTranscript(state: TranscriptBuildState, entry: SessionEntry): void {
  switch (entry.type as string) {
    case "message": {
      const message: unknown = (entry as { message?: unknown }).message;
      if (isRecord(message)) appendMessage(state, entry, message);
      else state.anomalies++;
      return;
    }
    case "custom_message":
      if (entry.type === "custom_message") pushEntry(state, customMessageEntryOf(entry));
      return;
    case "model_change":
      if (entry.type === "model_change") pushEntry(state, modelChangeEntry(entry));
      return;
    case "thinking_level_change":
      if (entry.type === "thinking_level_change") pushEntry(state, thinkingLevelChangeEntry(entry));
      return;
    case "compaction":
      if (entry.type !== "compaction") return;
      // pi 1.x stores the prompt and tools replayed at the boundary: the state later patches apply to.
      if ("systemMessage" in entry && entry.systemMessage !== undefined) resetPiSystemState(state.piSystem, entry.systemMessage);
      pushEntry(state, compactionEntry(entry));
      return;
    case "branch_summary":
      if (entry.type === "branch_summary") pushEntry(state, branchSummaryEntry(entry));
      return;
    case "custom": {
      if (!isSystemPromptCustomEntry(entry)) return; // other custom entries are extension state
      if (!isSystemPromptEntry(entry)) {
        state.anomalies++;
        return;
      }
      const system = systemPromptTranscriptEntry(entry, state.systemPrompt);
      state.systemPrompt = entry.data ?? null;
      if (system) pushEntry(state, system);
      return;
    }
    case "usage": {
      const mapped = usageEntry(entry);
      if (mapped === null) state.anomalies++;
      else pushEntry(state, mapped);
      return;
    }
    case "context_edit": {
      const edit = readContextEdit(entry as unknown as Record<string, unknown>);
      if (edit === null || !applyContextEdit(state.entries.length, (position) => transcriptEntryAt(state, position), edit))
        state.anomalies++;
      return;
    }
    default:
      // label, session_info (state, not transcript) and entry types pi adds later.
      return;
  }
}

/** The transcript build of a root-to-leaf path. */
export function buildTranscript(path: readonly SessionEntry[]): TranscriptBuildState {
  const state = emptyTranscriptBuild();
  for (const entry of path) appendToTranscript(state, entry);
  return state;
}

/** The transcript entries of a root-to-leaf path. */
export function transcriptOfPath(path: readonly SessionEntry[]): TranscriptEntry[] {
  return transcriptEntries(buildTranscript(path));
}

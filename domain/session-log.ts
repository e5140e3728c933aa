/**
 * The event store's vocabulary: pi session files are JSONL logs whose first line is a header and whose
 * other lines are entries forming an id/parentId tree. We reuse pi's own types (house style: never
 * re-declare them) and add the one record type our folds consume: a decoded line.
 */
import type { SessionEntry, SessionHeader } from "@earendil-works/pi-coding-agent";

export type {
  BranchSummaryEntry,
  CompactionEntry,
  CustomEntry,
  CustomMessageEntry,
  FileEntry,
  ModelChangeEntry,
  SessionEntry,
  SessionHeader,
  SessionInfoEntry,
  SessionMessageEntry,
  ThinkingLevelChangeEntry,
} from "@earendil-works/pi-coding-agent";

/** pi's label entry (not exported from the package root). */
export type LabelEntry = Extract<SessionEntry, { type: "label" }>;

/** The newest session format version; older files are migrated in memory to it. */
export const CURRENT_SESSION_VERSION = 3;

/**
 * One decoded line of a session file, the input every projection folds.
 * - `header`: line 1 (already migrated to the current version in memory).
 * - `entry`: a tree entry, migrated (version-1 entries carry deterministic ids). Entries of a type we do not
 *   know are passed through unchanged; folds ignore them.
 * - `malformed`: a complete line that is not a JSON object, or an entry before any header; counted and
 *   reported, never fatal.
 * `line` is the 1-based physical line number in the file.
 */
export type LogRecord =
  | { readonly kind: "header"; readonly line: number; readonly header: SessionHeader }
  | { readonly kind: "entry"; readonly line: number; readonly entry: SessionEntry }
  | { readonly kind: "malformed"; readonly line: number; readonly reason: string };

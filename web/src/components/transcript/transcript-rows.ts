/**
 * Pure helpers of the transcript view: the rows it virtualizes (entries plus the live streaming message),
 * row height estimates, which per-entry actions apply, the session entry an action names, diff line kinds,
 * thinking-block toggles and the stick-to-bottom rule. No Vue, no DOM.
 */
import type { TranscriptEntry } from "../../../../domain/transcript/transcript-types.ts";
import { isProvisionalEntry } from "../../lib/provisional-entries.ts";
import type { LiveBash } from "../../lib/streaming-message.ts";

/** The running turn as the runtime store derives it from the live stream (lib/streaming-message.ts). */
export interface StreamingMessage {
  id: string;
  role: "assistant";
  text: string;
  thinking: string;
  toolCalls: StreamingToolCall[];
  /** pi's message timestamp (ms), the persisted entry's `messageTimestamp`. */
  timestamp?: number;
}

export interface StreamingToolCall {
  id: string;
  name: string;
  /** The arguments (an object), or their JSON so far (a string) while the call streams. */
  arguments: unknown;
}

export type TranscriptRow =
  | { kind: "entry"; key: string; entry: TranscriptEntry }
  | { kind: "streaming"; key: string; streaming: StreamingMessage }
  /** A `!` command the runtime runs (or ran, until its entry is persisted). */
  | { kind: "bash"; key: string; bash: LiveBash };

/** Whether an entry shows in the transcript (custom messages can ask not to be displayed). */
export function isVisibleEntry(entry: TranscriptEntry): boolean {
  return !(entry.type === "message" && entry.role === "custom" && !entry.display);
}

/** The rows of a transcript: visible entries in order, then the streaming message and the live `!` command (if any). */
export function transcriptRows(
  entries: readonly TranscriptEntry[],
  streaming: StreamingMessage | null,
  bash: LiveBash | null = null,
): TranscriptRow[] {
  const rows: TranscriptRow[] = [];
  for (const entry of entries) if (isVisibleEntry(entry)) rows.push({ kind: "entry", key: `e:${entry.id}`, entry });
  if (streaming !== null) rows.push({ kind: "streaming", key: `s:${streaming.id}`, streaming });
  if (bash !== null) rows.push({ kind: "bash", key: "b:live", bash });
  return rows;
}

const LINE_PX = 22;
const CHARS_PER_LINE = 90;
const ROW_CHROME_PX = 44;

function textLines(text: string, cap: number): number {
  let lines = 0;
  for (const line of text.split("\n", cap)) lines += Math.max(1, Math.ceil(line.length / CHARS_PER_LINE));
  return Math.min(lines, cap);
}

/**
 * A first guess at a row's height in pixels before it is measured: good guesses keep the scrollbar steady
 * in a long transcript. Tool and summary rows are collapsed to a few lines, so they stay short.
 */
export function estimateRowHeight(row: TranscriptRow): number {
  if (row.kind === "streaming") return ROW_CHROME_PX + LINE_PX * textLines(row.streaming.text, 40);
  if (row.kind === "bash") return ROW_CHROME_PX + LINE_PX * (1 + textLines(row.bash.text, 12));
  const entry = row.entry;
  switch (entry.type) {
    case "message":
      return ROW_CHROME_PX + LINE_PX * textLines(entry.text, 60) + (entry.blocks.some((b) => b.type === "image") ? 180 : 0);
    case "tool":
      return ROW_CHROME_PX + LINE_PX * 3;
    case "bash":
      return ROW_CHROME_PX + LINE_PX * (1 + textLines(entry.output, 12));
    case "compaction":
    case "branch_summary":
      return ROW_CHROME_PX + LINE_PX * 2;
    case "system":
      return ROW_CHROME_PX + LINE_PX;
    default:
      return 32;
  }
}

/**
 * The pi session entry an action (fork, reset) names: a tool entry's id is `${callEntryId}:${toolCallId}`,
 * not a session entry, so it stands for its result (or its call while pending). Null: no such entry.
 */
export function sessionEntryIdOf(entry: TranscriptEntry): string | null {
  if (entry.type === "tool") return entry.resultEntryId ?? entry.callEntryId;
  return entry.id;
}

/** What the copy button copies (system entries have no copyText: the spec says to copy their text). */
export function copyTextOf(entry: TranscriptEntry): string {
  return entry.type === "system" ? entry.text : entry.copyText;
}

/** The `data-role` of an entry: the message role, or "" for non-message entries. */
export function roleOf(entry: TranscriptEntry): string {
  return entry.type === "message" ? entry.role : "";
}

export interface EntryActions {
  copy: boolean;
  fork: boolean;
  reset: boolean;
  edit: boolean;
}

/**
 * The actions an entry offers. Fork works while the runtime is busy (spec: "Forking is allowed during
 * streaming"); reset and edit rewrite the branch, so they wait for an idle runtime. A provisional prompt
 * (shown before pi wrote it, lib/provisional-entries.ts) has no session entry yet: it can only be copied.
 */
export function entryActions(entry: TranscriptEntry, busy: boolean): EntryActions {
  if (isProvisionalEntry(entry)) return { copy: copyTextOf(entry) !== "", fork: false, reset: false, edit: false };
  const sessionEntryId = sessionEntryIdOf(entry);
  return {
    copy: copyTextOf(entry) !== "",
    fork: sessionEntryId !== null,
    reset: sessionEntryId !== null && !busy,
    edit: entry.type === "message" && entry.role === "user" && !busy,
  };
}

export type DiffLineKind = "add" | "del" | "hunk" | "meta" | "context";

/**
 * The kind of one diff line: unified diffs (`@@`, `+++`/`---` headers) and pi's edit-tool diffs
 * (`+ 12 text`, `- 12 text`, `   12 text`).
 */
export function diffLineKind(line: string): DiffLineKind {
  if (line.startsWith("@@")) return "hunk";
  if (line.startsWith("+++ ") || line.startsWith("--- ") || line.startsWith("diff --git") || line.startsWith("index ")) return "meta";
  if (line.startsWith("+")) return "add";
  if (line.startsWith("-")) return "del";
  return "context";
}

export interface DiffLine {
  kind: DiffLineKind;
  text: string;
}

export function diffLines(diff: string): DiffLine[] {
  const lines = diff.endsWith("\n") ? diff.slice(0, -1).split("\n") : diff.split("\n");
  return lines.map((text) => ({ kind: diffLineKind(text), text }));
}

/** Pretty JSON of tool arguments (strings as they are; unserializable values as their string). */
export function prettyJson(value: unknown): string {
  if (typeof value === "string") return value;
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch (_error) {
    return String(value);
  }
}

export type ThinkingDefault = "collapsed" | "expanded";

/** The key of one thinking block for the per-block toggle. */
export function thinkingKey(entryId: string, blockIndex: number): string {
  return `${entryId}#${blockIndex}`;
}

/** Whether a thinking block is open: its own toggle if the user flipped it, else the default. */
export function isThinkingOpen(toggles: Readonly<Record<string, boolean>>, key: string, fallback: ThinkingDefault): boolean {
  return toggles[key] ?? fallback === "expanded";
}

/** How close to the end (px) still counts as "at the latest entry". */
export const STICK_THRESHOLD_PX = 48;

export interface ScrollReading {
  scrollTop: number;
  previousScrollTop: number;
  /** scrollHeight - scrollTop - clientHeight. */
  distanceFromEnd: number;
}

/**
 * Stick-to-bottom: near the end → stuck; scrolled up (the offset went down) away from the end → unstuck;
 * anything else (content growing under a stuck view, layout corrections) keeps the current state.
 */
export function nextStuck(stuck: boolean, reading: ScrollReading): boolean {
  if (reading.distanceFromEnd <= STICK_THRESHOLD_PX) return true;
  if (reading.scrollTop < reading.previousScrollTop - 1) return false;
  return stuck;
}

/** A data: URL of a base64 image block. */
export function imageDataUrl(image: { mimeType: string; data: string }): string {
  return `data:${image.mimeType};base64,${image.data}`;
}

/** Whether a MIME type may be shown as an <img> data: URL (raster and vector images only). */
export function isImageMime(mimeType: string): boolean {
  return /^image\/[a-z0-9.+-]+$/i.test(mimeType);
}

/** The first `limit` lines of a text and how many lines it has. */
export function clipLines(text: string, limit: number): { text: string; lines: number; clipped: boolean } {
  const lines = text.split("\n");
  if (lines.length <= limit) return { text, lines: lines.length, clipped: false };
  return { text: lines.slice(0, limit).join("\n"), lines: lines.length, clipped: true };
}

/** A one-line summary of a tool call for its header: the file, a command, or the first short argument. */
export function toolSummary(args: Record<string, unknown>, file?: string): string {
  if (file !== undefined && file !== "") return file;
  for (const key of ["command", "path", "file_path", "filePath", "pattern", "query", "url", "task"]) {
    const value = args[key];
    if (typeof value === "string" && value !== "") return value.split("\n", 1)[0] ?? "";
  }
  return "";
}

/**
 * The research report title of an assistant message, or null when it is not the report: the message the
 * research state names (`reportEntryId`) or one the server annotated with `researchReport`.
 */
export function reportTitleOf(entry: TranscriptEntry, research: { reportEntryId: string; reportTitle: string } | null): string | null {
  if (entry.type !== "message" || entry.role !== "assistant") return null;
  const annotation: unknown = (entry as unknown as Record<string, unknown>)["researchReport"];
  if (typeof annotation === "object" && annotation !== null) {
    const title = (annotation as Record<string, unknown>)["title"];
    return typeof title === "string" ? title : "";
  }
  if (research !== null && research.reportEntryId !== "" && research.reportEntryId === entry.id) return research.reportTitle;
  return null;
}

export interface ToolThreadChip {
  threadId: string;
  title: string;
  status: string;
  summary: string;
}

/** The research threads a `subagent` tool entry worked on (the server's `researchThreads` annotation). */
export function researchThreadsOf(entry: TranscriptEntry): ToolThreadChip[] {
  if (entry.type !== "tool") return [];
  const threads: unknown = (entry as unknown as Record<string, unknown>)["researchThreads"];
  if (!Array.isArray(threads)) return [];
  const chips: ToolThreadChip[] = [];
  for (const thread of threads as unknown[]) {
    if (typeof thread !== "object" || thread === null) continue;
    const record = thread as Record<string, unknown>;
    const text = (key: string) => (typeof record[key] === "string" ? (record[key] as string) : "");
    chips.push({ threadId: text("threadId"), title: text("title"), status: text("status"), summary: text("summary") });
  }
  return chips;
}

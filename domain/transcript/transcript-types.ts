/**
 * The transcript of a session's active branch as the browser shows it: one TranscriptEntry per visible
 * thing on the branch (message, tool call with its result, `!` bash run, model or thinking change,
 * compaction, branch summary, system-prompt change). A discriminated union on `type`; message entries
 * are further discriminated on `role`. Plain JSON only (no undefined-valued keys are written).
 *
 * Every entry carries the id and ISO timestamp of the session entry it came from, and rollout feedback
 * fields defaulting to "" (the API layer overlays stored feedback by id).
 */
import type { StopReason, Usage } from "@earendil-works/pi-ai";
import type { CitationSupport } from "../research/citation-support.ts";
import type { ResearchChildSession, ResearchThreadStatus } from "../research/research-types.ts";

export type RolloutFeedback = "helpful" | "unhelpful" | "";

export interface TranscriptEntryBase {
  /** The pi session entry id (tool entries: see ToolTranscriptEntry.id). */
  id: string;
  /** The session entry's ISO timestamp. */
  timestamp: string;
  rolloutFeedback: RolloutFeedback;
  rolloutFeedbackText: string;
  /** Set when a later pi 1.x `context_edit` entry changed what the model sees of this entry (context-edit.ts). */
  contextEdit?: ContextEditMark;
}

/**
 * How a `context_edit` changed an entry for the model. The entry shows what the model sees (an omitted message
 * has no text and no blocks, a replaced one the replacement); `original` keeps what the file first said.
 */
export interface ContextEditMark {
  /** The latest context_edit entry that applies. */
  editId: string;
  kind: "omitted" | "replaced";
  /** Message entries: the text and blocks before the edit; tool entries: the result text (blocks empty). */
  original: { text: string; blocks: TranscriptBlock[] };
}

export interface TextBlock {
  type: "text";
  text: string;
}
export interface ImageBlock {
  type: "image";
  mimeType: string;
  data: string;
}
export interface ThinkingBlock {
  type: "thinking";
  text: string;
  redacted?: boolean;
}
export type TranscriptBlock = TextBlock | ImageBlock | ThinkingBlock;

interface MessageTranscriptEntryBase extends TranscriptEntryBase {
  type: "message";
  /** Text blocks joined with "\n" (a string content is used as is). */
  text: string;
  /** Text, image and thinking blocks in order; tool calls become separate `tool` entries. */
  blocks: TranscriptBlock[];
  /** What the copy button copies: the text. */
  copyText: string;
  /** The pi message's own timestamp, ms since the epoch. */
  messageTimestamp: number;
}

export interface UserMessageTranscriptEntry extends MessageTranscriptEntryBase {
  role: "user";
}

export interface AssistantMessageTranscriptEntry extends MessageTranscriptEntryBase {
  role: "assistant";
  provider: string;
  model: string;
  stopReason: StopReason;
  errorMessage?: string;
  usage: Usage;
  /** On the research report message (the research state's `reportEntryId`): see research-transcript.ts. */
  researchReport?: ResearchReportDetails;
}

/** A numeric citation `[n](target)` of a research report, checked against the source ledger. */
export interface ResearchReportCitation {
  /** The cited number as written. */
  number: number;
  /** The link target (unescaped; angle brackets and title removed). */
  target: string;
  /** The ledger source with id `number`, or null when the ledger has none. */
  sourceId: number | null;
  /** The number names a ledger source that is not excluded and the target matches its URL or path. */
  valid: boolean;
  /** Why the citation is invalid; "" when valid. */
  reason: string;
}

/** `researchReport` of the report message: the report's citations and how well its sources support it. */
export interface ResearchReportDetails {
  title: string;
  /** The cited sources as the report event recorded them. */
  citedSourceIds: number[];
  /** Every numeric citation, in report order. */
  citations: ResearchReportCitation[];
  /** Per cited sentence: whether the cited source's claim and evidence support it (not a fact check). */
  support: CitationSupport[];
}

/** `researchThreads` of a `subagent` tool entry that ran reserved researchers: the threads it worked on. */
export interface ToolResearchThread {
  threadId: string;
  title: string;
  status: ResearchThreadStatus;
  summary: string;
  sourceIds: number[];
  childSession: ResearchChildSession | null;
  error: string;
}

/** A `custom_message` entry, or a message entry with role `custom` (v2 `hookMessage`). */
export interface CustomMessageTranscriptEntry extends MessageTranscriptEntryBase {
  role: "custom";
  customType: string;
  display: boolean;
}

export type MessageTranscriptEntry = UserMessageTranscriptEntry | AssistantMessageTranscriptEntry | CustomMessageTranscriptEntry;

export type ToolStatus = "pending" | "done" | "error";

/**
 * A tool call paired with its result. Tool entries follow their assistant message entry, one per call in
 * content order (the assistant entry keeps only its text/thinking blocks).
 *
 * `id` is `${callEntryId}:${toolCallId}` for a call on the branch (stable from pending to done, unique even
 * when two assistant messages reuse a provider call id); an orphan result (its call is not on the branch)
 * uses the toolResult entry's id. `timestamp` is the call's entry timestamp (the result's for orphans).
 */
export interface ToolTranscriptEntry extends TranscriptEntryBase {
  type: "tool";
  toolCallId: string;
  name: string;
  arguments: Record<string, unknown>;
  status: ToolStatus;
  /** Text blocks of the result joined with "\n"; "" while pending. */
  resultText: string;
  resultImages: ImageBlock[];
  /** The pi tool result `details` (null when absent). */
  details: unknown;
  isError: boolean;
  /** The assistant entry that made the call; null for an orphan result. */
  callEntryId: string | null;
  /** The toolResult entry; null while pending. */
  resultEntryId: string | null;
  resultTimestamp?: string;
  resultMessageTimestamp?: number;
  /** For file tools: the path from the arguments or details. */
  file?: string;
  /** A unified diff from the details (pi's edit tool) or arguments. */
  diff?: string;
  /** A patch from the details or arguments (apply_patch style tools). */
  patch?: string;
  /** A `subagent` call with researcher tasks: its research threads, in task order (see research-transcript.ts). */
  researchThreads?: ToolResearchThread[];
  copyText: string;
}

/** A `!`/`!!` bash run by the user (message role `bashExecution`). */
export interface BashTranscriptEntry extends TranscriptEntryBase {
  type: "bash";
  command: string;
  output: string;
  /** null when the process had no exit code (killed or cancelled). */
  exitCode: number | null;
  cancelled: boolean;
  truncated: boolean;
  excludeFromContext: boolean;
  fullOutputPath?: string;
  messageTimestamp: number;
  copyText: string;
}

export interface ModelChangeTranscriptEntry extends TranscriptEntryBase {
  type: "model_change";
  provider: string;
  modelId: string;
  copyText: string;
}

export interface ThinkingLevelChangeTranscriptEntry extends TranscriptEntryBase {
  type: "thinking_level_change";
  thinkingLevel: string;
  copyText: string;
}

export interface CompactionTranscriptEntry extends TranscriptEntryBase {
  type: "compaction";
  summary: string;
  tokensBefore: number;
  firstKeptEntryId: string;
  fromHook: boolean;
  copyText: string;
}

export interface BranchSummaryTranscriptEntry extends TranscriptEntryBase {
  type: "branch_summary";
  summary: string;
  /** The entry the branch came back from ("root" when branching to before the first entry). */
  fromId: string;
  fromHook: boolean;
  copyText: string;
}

export interface SystemPromptSection {
  name: string;
  text: string;
  removed: boolean;
}

export interface SystemToolRecord {
  name: string;
  description: string;
}

/** Exactly the spec's SystemTranscriptEntry (no role, blocks or copyText). */
export interface SystemTranscriptEntry {
  id: string;
  type: "system";
  label: "System";
  code: string;
  sections: SystemPromptSection[];
  toolsAdded: SystemToolRecord[];
  toolsRemoved: string[];
  text: string;
  messageTimestamp?: number;
  timestamp: string;
  rolloutFeedback: RolloutFeedback;
  rolloutFeedbackText: string;
}

/**
 * Model work outside the conversation, from a pi 1.x `usage` entry (e.g. `cache_warm`: a request that only warms
 * the provider's prompt cache). Counted in the session's usage; not a message.
 */
export interface UsageTranscriptEntry extends TranscriptEntryBase {
  type: "usage";
  /** pi's kind, e.g. "cache_warm". */
  kind: string;
  provider: string;
  model: string;
  usage: Usage;
  note?: string;
  /** One line: "cache_warm · anthropic/claude-x · 1,234 tokens · $0.0012". */
  copyText: string;
}

export type TranscriptEntry =
  | UsageTranscriptEntry
  | MessageTranscriptEntry
  | ToolTranscriptEntry
  | BashTranscriptEntry
  | ModelChangeTranscriptEntry
  | ThinkingLevelChangeTranscriptEntry
  | CompactionTranscriptEntry
  | BranchSummaryTranscriptEntry
  | SystemTranscriptEntry;

export type TranscriptEntryType = TranscriptEntry["type"];

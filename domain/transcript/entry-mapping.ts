/**
 * Pure per-entry mapping of pi session entries to transcript entries (everything except tool pairing,
 * which needs the branch's pending calls, and system-prompt snapshots, which need the previous snapshot:
 * see tool-entry.ts, system-prompt.ts and transcript-builder.ts).
 */
import type { StopReason, Usage } from "@earendil-works/pi-ai";
import type {
  BranchSummaryEntry,
  CompactionEntry,
  CustomMessageEntry,
  ModelChangeEntry,
  SessionEntry,
  ThinkingLevelChangeEntry,
} from "../session-log.ts";
import { isRecord, mapContent, numberField, stringField } from "./message-content.ts";
import type {
  AssistantMessageTranscriptEntry,
  BashTranscriptEntry,
  BranchSummaryTranscriptEntry,
  CompactionTranscriptEntry,
  CustomMessageTranscriptEntry,
  ModelChangeTranscriptEntry,
  ThinkingLevelChangeTranscriptEntry,
  UsageTranscriptEntry,
  UserMessageTranscriptEntry,
} from "./transcript-types.ts";

const STOP_REASONS: readonly string[] = ["stop", "length", "toolUse", "error", "aborted"];

/** Id, timestamp and empty rollout feedback: the fields every transcript entry starts with. */
export function entryBase(entry: Pick<SessionEntry, "id" | "timestamp">) {
  return {
    id: entry.id,
    timestamp: typeof entry.timestamp === "string" ? entry.timestamp : "",
    rolloutFeedback: "" as const,
    rolloutFeedbackText: "",
  };
}

function zeroUsage(): Usage {
  return {
    input: 0,
    output: 0,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: 0,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
  };
}

export function readUsage(value: unknown): Usage {
  if (!isRecord(value)) return zeroUsage();
  const cost = isRecord(value["cost"]) ? value["cost"] : {};
  return {
    input: numberField(value, "input") ?? 0,
    output: numberField(value, "output") ?? 0,
    cacheRead: numberField(value, "cacheRead") ?? 0,
    cacheWrite: numberField(value, "cacheWrite") ?? 0,
    totalTokens: numberField(value, "totalTokens") ?? 0,
    cost: {
      input: numberField(cost, "input") ?? 0,
      output: numberField(cost, "output") ?? 0,
      cacheRead: numberField(cost, "cacheRead") ?? 0,
      cacheWrite: numberField(cost, "cacheWrite") ?? 0,
      total: numberField(cost, "total") ?? 0,
    },
  };
}

/** A message entry with role `user`. */
export function userMessageEntry(entry: SessionEntry, message: Record<string, unknown>): UserMessageTranscriptEntry {
  const { text, blocks } = mapContent(message["content"]);
  return {
    ...entryBase(entry),
    type: "message",
    role: "user",
    text,
    blocks,
    copyText: text,
    messageTimestamp: numberField(message, "timestamp") ?? 0,
  };
}

/**
 * A message entry with role `assistant`: text and thinking blocks only (its tool calls become `tool`
 * entries). Empty, errored and aborted assistant messages are kept: they are what happened.
 */
export function assistantMessageEntry(entry: SessionEntry, message: Record<string, unknown>): AssistantMessageTranscriptEntry {
  const { text, blocks } = mapContent(message["content"]);
  const stopReason = stringField(message, "stopReason");
  const errorMessage = stringField(message, "errorMessage");
  const mapped: AssistantMessageTranscriptEntry = {
    ...entryBase(entry),
    type: "message",
    role: "assistant",
    text,
    blocks,
    copyText: text,
    messageTimestamp: numberField(message, "timestamp") ?? 0,
    provider: stringField(message, "provider") ?? "",
    model: stringField(message, "model") ?? "",
    stopReason: stopReason !== undefined && STOP_REASONS.includes(stopReason) ? (stopReason as StopReason) : "stop",
    usage: readUsage(message["usage"]),
  };
  if (errorMessage !== undefined) mapped.errorMessage = errorMessage;
  return mapped;
}

/** A message entry with role `custom` (files migrated from v2), or a `custom_message` entry. */
export function customMessageEntry(
  entry: SessionEntry,
  source: { customType?: unknown; content?: unknown; display?: unknown; timestamp?: unknown },
  messageTimestamp: number,
): CustomMessageTranscriptEntry {
  const { text, blocks } = mapContent(source.content);
  return {
    ...entryBase(entry),
    type: "message",
    role: "custom",
    text,
    blocks,
    copyText: text,
    messageTimestamp,
    customType: typeof source.customType === "string" ? source.customType : "",
    display: source.display !== false,
  };
}

/** A `custom_message` entry; its ms timestamp is parsed from the entry's ISO timestamp (0 if unparsable). */
export function customMessageEntryOf(entry: CustomMessageEntry): CustomMessageTranscriptEntry {
  const parsed = Date.parse(entry.timestamp);
  return customMessageEntry(entry, entry, Number.isFinite(parsed) ? parsed : 0);
}

/** A message entry with role `bashExecution` (the user's `!` / `!!` commands). */
export function bashEntry(entry: SessionEntry, message: Record<string, unknown>): BashTranscriptEntry {
  const command = stringField(message, "command") ?? "";
  const output = stringField(message, "output") ?? "";
  const mapped: BashTranscriptEntry = {
    ...entryBase(entry),
    type: "bash",
    command,
    output,
    exitCode: numberField(message, "exitCode") ?? null,
    cancelled: message["cancelled"] === true,
    truncated: message["truncated"] === true,
    excludeFromContext: message["excludeFromContext"] === true,
    messageTimestamp: numberField(message, "timestamp") ?? 0,
    copyText: output === "" ? `$ ${command}` : `$ ${command}\n${output}`,
  };
  const fullOutputPath = stringField(message, "fullOutputPath");
  if (fullOutputPath !== undefined) mapped.fullOutputPath = fullOutputPath;
  return mapped;
}

/**
 * A message entry with role `system` (pi does not write these; handled per the spec if one appears):
 * text is the string content; content arrays contribute nothing.
 */
export function modelChangeEntry(entry: ModelChangeEntry): ModelChangeTranscriptEntry {
  const provider = typeof entry.provider === "string" ? entry.provider : "";
  const modelId = typeof entry.modelId === "string" ? entry.modelId : "";
  return { ...entryBase(entry), type: "model_change", provider, modelId, copyText: `Model: ${provider}/${modelId}` };
}

export function thinkingLevelChangeEntry(entry: ThinkingLevelChangeEntry): ThinkingLevelChangeTranscriptEntry {
  const thinkingLevel = typeof entry.thinkingLevel === "string" ? entry.thinkingLevel : "";
  return { ...entryBase(entry), type: "thinking_level_change", thinkingLevel, copyText: `Thinking level: ${thinkingLevel}` };
}

export function compactionEntry(entry: CompactionEntry): CompactionTranscriptEntry {
  const summary = typeof entry.summary === "string" ? entry.summary : "";
  return {
    ...entryBase(entry),
    type: "compaction",
    summary,
    tokensBefore: typeof entry.tokensBefore === "number" ? entry.tokensBefore : 0,
    firstKeptEntryId: typeof entry.firstKeptEntryId === "string" ? entry.firstKeptEntryId : "",
    fromHook: entry.fromHook === true,
    copyText: summary,
  };
}

export function branchSummaryEntry(entry: BranchSummaryEntry): BranchSummaryTranscriptEntry {
  const summary = typeof entry.summary === "string" ? entry.summary : "";
  return {
    ...entryBase(entry),
    type: "branch_summary",
    summary,
    fromId: typeof entry.fromId === "string" ? entry.fromId : "",
    fromHook: entry.fromHook === true,
    copyText: summary,
  };
}

/** A pi 1.x `usage` entry (model work outside the conversation); null when it has no kind or usage. */
export function usageEntry(entry: SessionEntry): UsageTranscriptEntry | null {
  const record = entry as unknown as Record<string, unknown>;
  const kind = stringField(record, "kind");
  if (kind === undefined || !isRecord(record["usage"])) return null;
  const usage = readUsage(record["usage"]);
  const provider = stringField(record, "provider") ?? "";
  const model = stringField(record, "model") ?? "";
  const note = stringField(record, "note");
  const tokens = usage.input + usage.output + usage.cacheRead + usage.cacheWrite;
  const parts = [
    kind,
    provider !== "" || model !== "" ? `${provider}/${model}` : "",
    `${tokens} tokens`,
    usage.cost.total > 0 ? `$${usage.cost.total.toFixed(4)}` : "",
  ];
  return {
    ...entryBase(entry),
    type: "usage",
    kind,
    provider,
    model,
    usage,
    ...(note !== undefined ? { note } : {}),
    copyText: parts.filter((part) => part !== "").join(" · "),
  };
}

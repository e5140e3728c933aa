/**
 * Tool entries: a tool call from an assistant message paired with its toolResult message. A call starts
 * `pending`; its result makes it `done` or `error`. A result whose call is not on the branch becomes an
 * orphan tool entry on its own.
 */
import type { SessionEntry } from "../session-log.ts";
import { imageBlocks, isRecord, mapContent, numberField, stringField, type ToolCallBlock } from "./message-content.ts";
import { entryBase } from "./entry-mapping.ts";
import type { ToolTranscriptEntry } from "./transcript-types.ts";

/** Tools whose arguments/details name a file and may carry a diff or patch. */
export function isFileMutationTool(name: string): boolean {
  const lower = name.toLowerCase();
  return lower.includes("edit") || lower.includes("write") || lower.includes("patch");
}

/** The transcript id of a tool entry for a call on the branch: stable from pending to done. */
export function toolEntryId(callEntryId: string, toolCallId: string): string {
  return `${callEntryId}:${toolCallId}`;
}

function firstString(records: readonly Record<string, unknown>[], keys: readonly string[]): string | undefined {
  for (const record of records) {
    for (const key of keys) {
      const value = stringField(record, key);
      if (value !== undefined && value !== "") return value;
    }
  }
  return undefined;
}

/** Sets `file`, `diff` and `patch` from the details (first) or the arguments, for file-mutating tools. */
function surfaceFileChange(tool: ToolTranscriptEntry): void {
  if (!isFileMutationTool(tool.name)) return;
  const sources = isRecord(tool.details) ? [tool.details, tool.arguments] : [tool.arguments];
  const file = firstString(sources, ["file", "path", "file_path", "filePath"]);
  const diff = firstString(sources, ["diff"]);
  const patch = firstString(sources, ["patch"]);
  if (file !== undefined) tool.file = file;
  if (diff !== undefined) tool.diff = diff;
  if (patch !== undefined) tool.patch = patch;
}

/** The result text, or the tool name while there is none (arguments are shown, and copied, separately). */
function toolCopyText(tool: ToolTranscriptEntry): string {
  return tool.resultText === "" ? tool.name : tool.resultText;
}

/** A pending tool entry for a call made by the assistant message entry `callEntry`. */
export function pendingToolEntry(callEntry: SessionEntry, call: ToolCallBlock): ToolTranscriptEntry {
  const tool: ToolTranscriptEntry = {
    ...entryBase(callEntry),
    id: toolEntryId(callEntry.id, call.id),
    type: "tool",
    toolCallId: call.id,
    name: call.name,
    arguments: call.arguments,
    status: "pending",
    resultText: "",
    resultImages: [],
    details: null,
    isError: false,
    callEntryId: callEntry.id,
    resultEntryId: null,
    copyText: "",
  };
  surfaceFileChange(tool);
  tool.copyText = toolCopyText(tool);
  return tool;
}

/**
 * Completes `tool` (a pending entry, possibly an Immer draft) with a toolResult message; mutates it.
 */
export function completeToolEntry(tool: ToolTranscriptEntry, resultEntry: SessionEntry, message: Record<string, unknown>): void {
  const isError = message["isError"] === true;
  tool.status = isError ? "error" : "done";
  tool.isError = isError;
  tool.resultText = mapContent(message["content"]).text;
  tool.resultImages = imageBlocks(message["content"]);
  tool.details = message["details"] === undefined ? null : message["details"];
  tool.resultEntryId = resultEntry.id;
  if (typeof resultEntry.timestamp === "string") tool.resultTimestamp = resultEntry.timestamp;
  const resultMessageTimestamp = numberField(message, "timestamp");
  if (resultMessageTimestamp !== undefined) tool.resultMessageTimestamp = resultMessageTimestamp;
  if (tool.name === "") tool.name = stringField(message, "toolName") ?? "";
  surfaceFileChange(tool);
  tool.copyText = toolCopyText(tool);
}

/** A toolResult whose call is not on the branch (or was already answered): a tool entry on its own. */
export function orphanToolEntry(resultEntry: SessionEntry, message: Record<string, unknown>): ToolTranscriptEntry {
  const tool: ToolTranscriptEntry = {
    ...entryBase(resultEntry),
    type: "tool",
    toolCallId: stringField(message, "toolCallId") ?? "",
    name: stringField(message, "toolName") ?? "",
    arguments: {},
    status: "pending",
    resultText: "",
    resultImages: [],
    details: null,
    isError: false,
    callEntryId: null,
    resultEntryId: null,
    copyText: "",
  };
  completeToolEntry(tool, resultEntry, message);
  return tool;
}

/**
 * What full-text search indexes of a session file: the searchable documents of each decoded session entry.
 * Pure (no I/O): the search indexer (adapters/search/) feeds it the entries the session decoder emits, so
 * version-1 files get the same deterministic entry ids the transcript shows.
 *
 * One entry gives zero or more documents, each naming the session entry it came from (`entryId`, the id the
 * session tree and the transcript's `data-entry-id` use; see `focusTargetOf`):
 * - `user`, `assistant`: the message's text blocks (a string content as is). Thinking is NOT indexed: it is
 *   collapsed in the transcript, long and noisy, and pi's own /resume search does not look at it.
 * - `toolCall`: per tool call of an assistant message, its name and its short string arguments (a command, a
 *   path, a pattern, a URL...; not file contents such as `content`/`oldText`), with `toolCallId`.
 * - `toolResult`: the result's text blocks, with `toolCallId`.
 * - `bash`: a `!` command run by the user: the command and its output.
 * - `compaction`, `branchSummary`: the summary text.
 * - `custom`: a displayed `custom_message` (or a v2 `hookMessage`) text; hidden ones are not in the transcript
 *   and are not indexed.
 * Everything else (model and thinking changes, labels, session info, extension state, usage) has no text a
 * person searches for. Empty texts give no document. A text longer than `MAX_DOCUMENT_CHARS` is indexed by its
 * beginning.
 */
import type { SessionEntry } from "../session-log.ts";
import { isRecord, stringField } from "../transcript/message-content.ts";
import { toolEntryId } from "../transcript/tool-entry.ts";

export const SEARCH_KINDS = ["user", "assistant", "toolCall", "toolResult", "bash", "compaction", "branchSummary", "custom"] as const;
export type SearchKind = (typeof SEARCH_KINDS)[number];

/** Characters of one document that are indexed (a 1 MB tool output is indexed by its first 100,000). */
export const MAX_DOCUMENT_CHARS = 100_000;

export interface SearchDocument {
  /** The session entry the text is in (for a v1 file, its deterministic id). */
  readonly entryId: string;
  readonly kind: SearchKind;
  /** The entry's ISO timestamp ("" when it has none). */
  readonly timestamp: string;
  /** The tool call a `toolCall` or `toolResult` document belongs to; "" otherwise. */
  readonly toolCallId: string;
  readonly text: string;
}

/** Arguments of a tool call worth finding again: short strings that name what the call worked on. */
const TOOL_ARGUMENT_KEYS = ["command", "path", "file_path", "filePath", "pattern", "query", "url", "task", "description", "glob"];
/** A tool argument longer than this is content (a file body, a script), not a name: left out. */
const MAX_TOOL_ARGUMENT_CHARS = 2_000;

/** The text as indexed: cut to MAX_DOCUMENT_CHARS (never inside a surrogate pair). */
export function indexableText(text: string): string {
  if (text.length <= MAX_DOCUMENT_CHARS) return text;
  let end = MAX_DOCUMENT_CHARS;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return text.slice(0, end);
}

/** The text blocks of a message content joined by "\n" (a string content as is). */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const texts: string[] = [];
  for (const block of content) {
    if (isRecord(block) && block["type"] === "text") {
      const text = stringField(block, "text");
      if (text !== undefined) texts.push(text);
    }
  }
  return texts.join("\n");
}

function toolCallText(block: Record<string, unknown>): string {
  const parts: string[] = [];
  const name = stringField(block, "name");
  if (name !== undefined && name !== "") parts.push(name);
  const args = block["arguments"];
  if (isRecord(args)) {
    for (const key of TOOL_ARGUMENT_KEYS) {
      const value = stringField(args, key);
      if (value !== undefined && value !== "" && value.length <= MAX_TOOL_ARGUMENT_CHARS) parts.push(value);
    }
  }
  return parts.join("\n");
}

/** The searchable documents of one session entry, in content order (see the module comment). */
export function searchDocumentsOf(entry: SessionEntry): SearchDocument[] {
  const record = entry as unknown as Record<string, unknown>;
  const entryId = stringField(record, "id");
  if (entryId === undefined || entryId === "") return [];
  const timestamp = stringField(record, "timestamp") ?? "";
  const documents: SearchDocument[] = [];
  const add = (kind: SearchKind, text: string, toolCallId = ""): void => {
    if (text.trim() === "") return;
    documents.push({ entryId, kind, timestamp, toolCallId, text: indexableText(text) });
  };
  switch (record["type"]) {
    case "message": {
      const message = record["message"];
      if (!isRecord(message)) return [];
      switch (message["role"]) {
        case "user":
          add("user", contentText(message["content"]));
          break;
        case "assistant": {
          add("assistant", contentText(message["content"]));
          const content = message["content"];
          if (Array.isArray(content)) {
            for (const block of content) {
              if (!isRecord(block) || block["type"] !== "toolCall") continue;
              const id = stringField(block, "id");
              if (id !== undefined) add("toolCall", toolCallText(block), id);
            }
          }
          break;
        }
        case "toolResult":
          add("toolResult", contentText(message["content"]), stringField(message, "toolCallId") ?? "");
          break;
        case "bashExecution": {
          const command = stringField(message, "command") ?? "";
          const output = stringField(message, "output") ?? "";
          add("bash", output === "" ? command : `${command}\n${output}`);
          break;
        }
        case "custom":
        case "hookMessage":
          if (message["display"] !== false) add("custom", contentText(message["content"]));
          break;
        default:
          break;
      }
      break;
    }
    case "custom_message":
      if (record["display"] !== false) add("custom", contentText(record["content"]));
      break;
    case "compaction":
      add("compaction", stringField(record, "summary") ?? "");
      break;
    case "branch_summary":
      add("branchSummary", stringField(record, "summary") ?? "");
      break;
    default:
      break;
  }
  return documents;
}

/**
 * The id the transcript knows a hit by: the session entry id, except for a tool call, whose transcript row is
 * `${callEntryId}:${toolCallId}` (domain/transcript/tool-entry.ts). A tool result's session entry id is
 * resolved by the transcript itself (its tool row names it as `resultEntryId`).
 */
export function focusTargetOf(hit: {
  readonly entryId: string;
  readonly role: SearchKind;
  readonly toolCallId?: string | undefined;
}): string {
  return hit.role === "toolCall" && hit.toolCallId !== undefined && hit.toolCallId !== ""
    ? toolEntryId(hit.entryId, hit.toolCallId)
    : hit.entryId;
}

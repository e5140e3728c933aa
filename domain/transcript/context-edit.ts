/**
 * pi 1.x `context_edit` entries in the transcript.
 *
 * `{ type: "context_edit", targetId, replacement: { content } | null }` changes what the model sees of an earlier
 * message on the branch (a user, assistant, toolResult or custom message): `null` omits it, a replacement swaps
 * its content. pi writes them itself to drop a failed attempt before an automatic retry; extensions write them
 * too. The latest edit of a target wins. The transcript entry of the target shows what the model sees and keeps
 * the file's original in `contextEdit.original`, so nothing the file says is hidden from the person:
 * - a message entry: omitted → no text and no blocks; replaced → the replacement's text and blocks. Omitting an
 *   assistant message omits the tool calls it made (their tool entries) too;
 * - a tool entry (the target is its result): omitted → no result text; replaced → the replacement's text.
 *
 * Targets are found by scanning back from the end: pi's own edits follow their target closely, and no index of
 * every entry is kept (it would be copied on every append under Immer).
 */
import { mapContent, isRecord } from "./message-content.ts";
import type { ContextEditMark, ToolTranscriptEntry, TranscriptBlock, TranscriptEntry } from "./transcript-types.ts";

export interface ContextEditInput {
  editId: string;
  targetId: string;
  /** null: omitted; otherwise the replacement content (a string or content blocks). */
  replacement: { content: unknown } | null;
}

/** The edit a context_edit entry carries, or null when its shape is unusable. */
export function readContextEdit(entry: Record<string, unknown>): ContextEditInput | null {
  const editId = entry["id"];
  const targetId = entry["targetId"];
  if (typeof editId !== "string" || typeof targetId !== "string") return null;
  const replacement = entry["replacement"];
  if (replacement === null) return { editId, targetId, replacement: null };
  if (isRecord(replacement) && "content" in replacement) return { editId, targetId, replacement: { content: replacement["content"] } };
  return null;
}

/**
 * Applies an edit to the transcript entries `at(0..length-1)` (mutating the target entries; works on drafts).
 * Returns false when the target is not in the transcript (not on this path, or not a message pi can edit).
 */
export function applyContextEdit(length: number, at: (position: number) => TranscriptEntry | undefined, edit: ContextEditInput): boolean {
  for (let position = length - 1; position >= 0; position--) {
    const entry = at(position);
    if (entry === undefined) continue;
    if (entry.type === "tool" && entry.resultEntryId === edit.targetId) {
      editToolResult(entry, edit);
      return true;
    }
    if (entry.type !== "message" || entry.id !== edit.targetId) continue;
    const original = entry.contextEdit?.original ?? { text: entry.text, blocks: entry.blocks };
    const seen = edit.replacement === null ? { text: "", blocks: [] as TranscriptBlock[] } : mapContent(edit.replacement.content);
    entry.text = seen.text;
    entry.blocks = seen.blocks;
    entry.copyText = seen.text;
    entry.contextEdit = mark(edit, original);
    if (entry.role === "assistant" && edit.replacement === null) {
      for (let next = position + 1; next < length; next++) {
        const tool = at(next);
        if (tool?.type !== "tool" || tool.callEntryId !== edit.targetId) break;
        tool.contextEdit = mark(edit, tool.contextEdit?.original ?? { text: tool.resultText, blocks: [] });
      }
    }
    return true;
  }
  return false;
}

function editToolResult(tool: ToolTranscriptEntry, edit: ContextEditInput): void {
  const original = tool.contextEdit?.original ?? { text: tool.resultText, blocks: [] };
  tool.resultText = edit.replacement === null ? "" : mapContent(edit.replacement.content).text;
  tool.contextEdit = mark(edit, original);
}

function mark(edit: ContextEditInput, original: ContextEditMark["original"]): ContextEditMark {
  return { editId: edit.editId, kind: edit.replacement === null ? "omitted" : "replaced", original };
}

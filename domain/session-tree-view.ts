/**
 * The session tree as the browser shows it (pi's `/tree`): every entry of the file as a small node (its kind, a
 * one-line preview, its label, whether it failed), with its parent, in file order, and the active leaf.
 *
 * Rules:
 * - A node's `parentId` is the parent the tree placed it under (domain/session-tree.ts): null for roots, which
 *   include orphans whose parent is unknown, so following `parentId` always ends at a node of the view.
 * - `leafId` is the leaf the caller says is active: the runtime's when it moved without writing (`effectiveLeaf`),
 *   else the file's last entry.
 * - Previews are one line (white space collapsed) of at most `TREE_TEXT_LIMIT` characters: the text of a user or
 *   assistant message (an assistant message with only tool calls shows them as `name(first argument)`), a tool
 *   result's tool name and first output line, a summary's text, `model → provider/id`, `thinking → level`, the
 *   label set, the session name, a custom entry's type.
 * Pure: no I/O, no clock.
 */
import type { SessionEntry } from "./session-log.ts";
import { entryIds, entryOf, labelOf, pathTo, type SessionTreeState } from "./session-tree.ts";
import { isRecord, stringField, toolCallBlocks } from "./transcript/message-content.ts";
import { truncateText } from "./session-summary.ts";

export const SESSION_TREE_NODE_KINDS = [
  "user",
  "assistant",
  "tool",
  "bash",
  "compaction",
  "branch_summary",
  "custom_message",
  "model_change",
  "thinking_level_change",
  "label",
  "session_info",
  "custom",
  "other",
] as const;

export type SessionTreeNodeKind = (typeof SESSION_TREE_NODE_KINDS)[number];

export interface SessionTreeNode {
  id: string;
  /** The node this one hangs under; null for a root (and for an orphan whose parent is not in the file). */
  parentId: string | null;
  kind: SessionTreeNodeKind;
  /** One line, at most TREE_TEXT_LIMIT characters. */
  text: string;
  timestamp: string;
  /** The entry's current label (pi's `/tree` labels). */
  label?: string;
  /** A tool result's tool, or the first tool an assistant message calls. */
  toolName?: string;
  /** An assistant message that ended in an error or was aborted, a failed tool result. */
  error?: true;
}

export interface SessionTreeView {
  sessionId: string;
  /** The active leaf; null for a session without entries. */
  leafId: string | null;
  /** Every entry, in file order (from `from` on). */
  nodes: SessionTreeNode[];
  /** The file-order index of the first node sent: 0 for the whole tree, more for the nodes appended since. */
  from: number;
  /** Nodes in the whole tree. */
  total: number;
  /** Every current label by entry id (a label entry changes an earlier node's label). */
  labels: Record<string, string>;
}

/** What a client holding the first `from` nodes (the last of them `after`) asks for. */
export interface TreeSince {
  from: number;
  after: string;
}

export const TREE_TEXT_LIMIT = 160;

function oneLine(text: string): string {
  // Cut before collapsing white space: a long output is never scanned whole.
  return truncateText(
    truncateText(text, TREE_TEXT_LIMIT * 4)
      .replace(/\s+/g, " ")
      .trim(),
    TREE_TEXT_LIMIT,
  );
}

/** The text of a content value (a string, or its text blocks joined by a space), at most `max` characters. */
function boundedText(content: unknown, max = TREE_TEXT_LIMIT * 4): string {
  if (typeof content === "string") return truncateText(content, max);
  if (!Array.isArray(content)) return "";
  let text = "";
  for (const block of content) {
    if (text.length >= max) break;
    if (!isRecord(block) || block["type"] !== "text") continue;
    const part = stringField(block, "text");
    if (part !== undefined) text = text === "" ? truncateText(part, max) : `${text} ${truncateText(part, max - text.length)}`;
  }
  return text;
}

function firstArgument(args: Record<string, unknown>): string {
  for (const key of ["path", "file_path", "command", "pattern", "query", "url"]) {
    const value = stringField(args, key);
    if (value !== undefined) return value;
  }
  for (const value of Object.values(args)) if (typeof value === "string") return value;
  return "";
}

interface Preview {
  kind: SessionTreeNodeKind;
  text: string;
  toolName?: string;
  error?: true;
}

function messagePreview(message: Record<string, unknown>): Preview {
  const role = message["role"];
  if (role === "user") return { kind: "user", text: boundedText(message["content"]) };
  if (role === "assistant") {
    const text = boundedText(message["content"]);
    const calls = toolCallBlocks(message["content"]);
    const stop = message["stopReason"];
    const failed = stop === "error" || stop === "aborted";
    const shown =
      text.trim() !== ""
        ? text
        : calls.length > 0
          ? calls.map((call) => `${call.name}(${firstArgument(call.arguments)})`).join(", ")
          : failed
            ? (stringField(message, "errorMessage") ?? String(stop))
            : "";
    return {
      kind: "assistant",
      text: shown,
      ...(calls[0] !== undefined ? { toolName: calls[0].name } : {}),
      ...(failed ? { error: true as const } : {}),
    };
  }
  if (role === "toolResult") {
    const toolName = stringField(message, "toolName") ?? "";
    const first = boundedText(message["content"]).split("\n", 1)[0] ?? "";
    return { kind: "tool", text: first, toolName, ...(message["isError"] === true ? { error: true as const } : {}) };
  }
  if (role === "bashExecution") return { kind: "bash", text: `$ ${stringField(message, "command") ?? ""}` };
  if (role === "custom") return { kind: "custom_message", text: boundedText(message["content"]) };
  if (role === "branchSummary" || role === "compactionSummary") {
    return { kind: role === "branchSummary" ? "branch_summary" : "compaction", text: stringField(message, "summary") ?? "" };
  }
  return { kind: "other", text: typeof role === "string" ? role : "" };
}

function previewOf(entry: SessionEntry): Preview {
  const record = entry as unknown as Record<string, unknown>;
  switch (entry.type) {
    case "message": {
      const message = record["message"];
      return isRecord(message) ? messagePreview(message) : { kind: "other", text: "" };
    }
    case "compaction":
      return { kind: "compaction", text: boundedText(stringField(record, "summary") ?? "") };
    case "branch_summary":
      return { kind: "branch_summary", text: boundedText(stringField(record, "summary") ?? "") };
    case "custom_message":
      return { kind: "custom_message", text: boundedText(record["content"]) };
    case "model_change":
      return { kind: "model_change", text: `model → ${stringField(record, "provider") ?? ""}/${stringField(record, "modelId") ?? ""}` };
    case "thinking_level_change":
      return { kind: "thinking_level_change", text: `thinking → ${stringField(record, "thinkingLevel") ?? ""}` };
    case "label": {
      const label = stringField(record, "label");
      return { kind: "label", text: label !== undefined && label !== "" ? `label: ${label}` : "label cleared" };
    }
    case "session_info":
      return { kind: "session_info", text: `name: ${stringField(record, "name") ?? ""}` };
    case "custom":
      return { kind: "custom", text: stringField(record, "customType") ?? "" };
    default:
      return { kind: "other", text: typeof record["type"] === "string" ? record["type"] : "" };
  }
}

/** The parent a node hangs under: the entry's parent when it is in the tree (and is not the entry itself). */
function placedParent(tree: SessionTreeState, entry: SessionEntry): string | null {
  const parent: unknown = entry.parentId;
  if (typeof parent !== "string" || parent === entry.id) return null;
  return entryOf(tree, parent) !== undefined ? parent : null;
}

/** One node of the view. */
export function treeNodeOf(tree: SessionTreeState, entry: SessionEntry): SessionTreeNode {
  const preview = previewOf(entry);
  const label = labelOf(tree, entry.id);
  return {
    id: entry.id,
    parentId: placedParent(tree, entry),
    kind: preview.kind,
    text: oneLine(preview.text),
    timestamp: typeof entry.timestamp === "string" ? entry.timestamp : "",
    ...(label !== undefined ? { label } : {}),
    ...(preview.toolName !== undefined && preview.toolName !== "" ? { toolName: preview.toolName } : {}),
    ...(preview.error ? { error: true as const } : {}),
  };
}

/**
 * pi's leaf when it moved without writing (a /tree navigation in a runtime): `leafId` (null: before the first
 * entry), held against the file's last entry at that moment. Any later write ends it: pi appends under its leaf, so
 * the file's new last entry is the leaf again.
 */
export interface MovedLeaf {
  leafId: string | null;
  lastEntryId: string | null;
}

/**
 * The leaf a session shows: the moved leaf while the file still ends with the entry it holds against (and the leaf
 * is an entry of the file), else the file's last entry.
 */
export function effectiveLeaf(tree: SessionTreeState, moved: MovedLeaf | null | undefined): string | null {
  if (moved === null || moved === undefined || moved.lastEntryId !== tree.leafId) return tree.leafId;
  if (moved.leafId !== null && entryOf(tree, moved.leafId) === undefined) return tree.leafId;
  return moved.leafId;
}

/**
 * The tree view. With `since` (a client holding the first `since.from` nodes, the last being `since.after`), only
 * the nodes appended after them, as long as the file still starts with those nodes (the same id at `from - 1`);
 * otherwise (a rewritten file, a stale client) the whole tree.
 */
export function sessionTreeView(
  tree: SessionTreeState,
  sessionId: string,
  leafId: string | null = tree.leafId,
  since?: TreeSince,
): SessionTreeView {
  const ids = entryIds(tree);
  const from = since !== undefined && since.from > 0 && since.from <= ids.length && ids[since.from - 1] === since.after ? since.from : 0;
  const nodes: SessionTreeNode[] = [];
  for (let i = from; i < ids.length; i++) {
    const entry = entryOf(tree, ids[i] as string);
    if (entry !== undefined) nodes.push(treeNodeOf(tree, entry));
  }
  const labels: Record<string, string> = {};
  for (const [id, { label }] of Object.entries(tree.labels)) labels[id] = label;
  return { sessionId, leafId, nodes, from, total: ids.length, labels };
}

/** The entries from the root to `leafId` (the branch a leaf ends), empty for null or an unknown id. */
export function branchEntries(tree: SessionTreeState, leafId: string | null): SessionEntry[] {
  return leafId === null || entryOf(tree, leafId) === undefined ? [] : pathTo(tree, leafId);
}

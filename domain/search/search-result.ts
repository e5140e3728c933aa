/**
 * A full-text search hit as the route answers it, and the index status that goes with every answer. Plain
 * JSON; the snippet is segments of plain text (search-snippet.ts), never HTML.
 */
import type { SearchKind } from "./search-documents.ts";
import type { SnippetSegment } from "./search-snippet.ts";

export interface SearchResult {
  /** The session's id (its header id): `/sessions/<id>` opens it. */
  sessionId: string;
  /** Its file. */
  sessionPath: string;
  /** The session's name, when it has one. */
  sessionName?: string;
  /** The session's first user message (cut), for a title when it has no name. */
  firstMessage: string;
  /** The session's folder. */
  cwd: string;
  /**
   * The session entry the text is in (v1 files: the deterministic id the transcript shows). A tool call's
   * arguments are in its assistant message entry; a tool output in its toolResult entry.
   */
  entryId: string;
  /** What the text is: a user or assistant message, a tool call or its output, a `!` command... */
  role: SearchKind;
  /** The tool call of a `toolCall` or `toolResult` hit. */
  toolCallId?: string;
  /** The entry's ISO timestamp ("" when it has none). */
  timestamp: string;
  /** The best window of the text, matched words marked. */
  snippet: SnippetSegment[];
}

/** How far the search index is: `indexed` of the `total` listed sessions are searchable as they are now. */
export interface SearchIndexStatus {
  indexed: number;
  total: number;
  /** The first indexing pass is done (later changes are indexed as they come). */
  ready: boolean;
}

export interface SearchAnswer {
  results: SearchResult[];
  status: SearchIndexStatus;
}

/** Hits of one session at most per answer, so one long session does not fill the page. */
export const HITS_PER_SESSION = 3;
export const DEFAULT_SEARCH_LIMIT = 30;
export const MAX_SEARCH_LIMIT = 100;

/** Folder paths compare without trailing slashes. */
export function sameSearchFolder(a: string, b: string): boolean {
  const trim = (p: string): string => (p.length > 1 ? p.replace(/\/+$/, "") : p);
  return trim(a) === trim(b);
}

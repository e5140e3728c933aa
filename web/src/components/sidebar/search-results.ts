/**
 * Pure helpers of the sidebar's full-text search (SearchResults.vue, use-full-text-search.ts): which text is worth
 * a request, what a hit says of itself, where it opens, and how the arrow keys move through the hits. No Vue.
 */
import { focusTargetOf } from "../../../../domain/search/search-documents.ts";
import { MAX_QUERY_CHARS, searchTerms } from "../../../../domain/search/search-query.ts";
import type { SearchResult, SearchRole } from "../../api/search.ts";

/** The text to send for a query, or null when it has nothing to search (no letter or digit). */
export function searchableQuery(query: string): string | null {
  const text = query.slice(0, MAX_QUERY_CHARS);
  return searchTerms(text).terms.length === 0 ? null : text;
}

/** What kind of text a hit is in, in words. */
export const ROLE_LABELS: Readonly<Record<SearchRole, string>> = {
  user: "You",
  assistant: "Assistant",
  toolCall: "Tool call",
  toolResult: "Tool output",
  bash: "Shell",
  compaction: "Compaction summary",
  branchSummary: "Branch summary",
  custom: "Note",
};

/** A stable key of a hit (one entry may hold several hits: its text and its tool calls). */
export function resultKey(result: SearchResult): string {
  return `${result.sessionPath}\n${result.entryId}\n${result.role}\n${result.toolCallId ?? ""}`;
}

/** Where a hit opens: its session, at the transcript row that shows it. */
export function resultLocation(result: SearchResult): { path: string; query: { entry: string } } {
  return { path: `/sessions/${encodeURIComponent(result.sessionId)}`, query: { entry: focusTargetOf(result) } };
}

/**
 * The active hit after an arrow key: down from the search box (-1) goes to the first hit, up from the first one
 * back to the box; the ends do not wrap.
 */
export function moveActive(active: number, key: "ArrowUp" | "ArrowDown", count: number): number {
  if (count === 0) return -1;
  if (key === "ArrowDown") return Math.min(count - 1, Math.max(-1, active) + 1);
  return Math.max(-1, Math.min(active, count) - 1);
}

/** The line that says the index is still being built, or null when it is complete. */
export function buildingText(status: { indexed: number; total: number; ready: boolean } | null): string | null {
  if (status === null || status.ready) return null;
  return `Indexing messages: ${status.indexed.toLocaleString("en-US")} of ${status.total.toLocaleString("en-US")} sessions so far. Results may be incomplete.`;
}

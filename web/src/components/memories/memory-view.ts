/**
 * What the Memory inspector shows, as pure functions: the filter (scope, active or archived, search words), the
 * counts on its buttons, the selection of a multi-select, tags typed as text, labels and dates. The records and
 * their counts come from the server (web/src/api/memories.ts); after a change the inspector keeps the server's
 * list and recounts it with the same rule the server uses (domain/memories/memory-rules.ts `memoryCounts`).
 */
import { compareMemories } from "../../../../domain/memories/memory-rules.ts";
import type {
  Memory,
  MemoryContext,
  MemoryCounts,
  MemoryScope,
  MemorySource,
  MemoryStatus,
} from "../../../../domain/memories/memory-types.ts";
import { clockTime, fullDateTime, shortDate, toDate } from "../../lib/time-format.ts";

export type ScopeFilter = "all" | MemoryScope;

export const SCOPE_FILTERS: readonly ScopeFilter[] = ["all", "global", "project", "session"];

export const SCOPE_LABELS: Record<ScopeFilter, string> = { all: "All", global: "Global", project: "Project", session: "Session" };

export const SCOPE_HINTS: Record<MemoryScope, string> = {
  global: "Every project",
  project: "This project",
  session: "This session only",
};

export const SOURCE_LABELS: Record<MemorySource, string> = { agent: "agent", user: "you", system: "system", import: "import" };

export interface MemoryFilter {
  readonly scope: ScopeFilter;
  readonly status: MemoryStatus;
  readonly query: string;
}

/** The lower-case words of a search box. */
export function searchTerms(query: string): string[] {
  return query.toLowerCase().split(/\s+/).filter(Boolean);
}

/** Every word appears in the content, the reason, a tag or the source. */
export function matchesSearch(memory: Memory, terms: readonly string[]): boolean {
  if (terms.length === 0) return true;
  const haystack = [memory.contentMd, memory.reasonMd, memory.tags.join(" "), memory.source, memory.projectName ?? ""]
    .join("\n")
    .toLowerCase();
  return terms.every((term) => haystack.includes(term));
}

/** The records the inspector lists, in the server's order. */
export function filterMemories(memories: readonly Memory[], filter: MemoryFilter): Memory[] {
  const terms = searchTerms(filter.query);
  return memories.filter(
    (memory) =>
      memory.status === filter.status && (filter.scope === "all" || memory.scope === filter.scope) && matchesSearch(memory, terms),
  );
}

/** The number on each scope button: records of that scope with the status shown. */
export function scopeCounts(counts: MemoryCounts, status: MemoryStatus): Record<ScopeFilter, number> {
  return {
    all: counts[status],
    global: counts.scopes.global[status],
    project: counts.scopes.project[status],
    session: counts.scopes.session[status],
  };
}

/** The number on each status button: records of that status within the scope shown. */
export function statusCounts(counts: MemoryCounts, scope: ScopeFilter): Record<MemoryStatus, number> {
  if (scope === "all") return { active: counts.active, archived: counts.archived };
  return { ...counts.scopes[scope] };
}

/** The scopes a new memory can go to: the session scope needs an open session. */
export function writableScopes(context: Pick<MemoryContext, "sessionAvailable"> | null): MemoryScope[] {
  return context?.sessionAvailable ? ["global", "project", "session"] : ["global", "project"];
}

/** The scope a new memory starts in: the one shown when it can be written, else the project. */
export function defaultScope(filter: ScopeFilter, context: Pick<MemoryContext, "sessionAvailable"> | null): MemoryScope {
  return filter !== "all" && writableScopes(context).includes(filter) ? filter : "project";
}

/** Tags typed as text: comma-separated (the server trims, lower-cases and drops duplicates). */
export function parseTags(text: string): string[] {
  return text
    .split(",")
    .map((tag) => tag.trim())
    .filter(Boolean);
}

export function tagsText(tags: readonly string[]): string {
  return tags.join(", ");
}

/** The list with `memory` added or replaced, in the server's order. */
export function upsertMemory(memories: readonly Memory[], memory: Memory): Memory[] {
  return [...memories.filter((m) => m.id !== memory.id), memory].sort(compareMemories);
}

/** `id` added to or removed from a selection. */
export function toggleSelected(selection: readonly string[], id: string): string[] {
  return selection.includes(id) ? selection.filter((s) => s !== id) : [...selection, id];
}

/** The selected ids still listed (a filter, a deletion or a reload may hide some). */
export function selectedShown(selection: readonly string[], shown: readonly Pick<Memory, "id">[]): string[] {
  const ids = new Set(shown.map((m) => m.id));
  return selection.filter((id) => ids.has(id));
}

/** "Project · app", "Session", "Global": where a record applies. */
export function scopeLabel(memory: Pick<Memory, "scope" | "projectName">): string {
  if (memory.scope === "project" && memory.projectName) return `Project · ${memory.projectName}`;
  return SCOPE_LABELS[memory.scope];
}

function when(ms: number, now: number, locale: string | undefined): string {
  const date = toDate(ms);
  if (date === null) return "";
  const today = toDate(now);
  const sameDay = today !== null && date.toDateString() === today.toDateString();
  if (sameDay) return clockTime(date, locale);
  const sameYear = today !== null && date.getFullYear() === today.getFullYear();
  return `${shortDate(date, !sameYear, locale)} ${clockTime(date, locale)}`;
}

/** The dates of a record in words ("updated 15:29 · created 12 Mar 09:00 · archived …") and for a tooltip. */
export function memoryDates(memory: Memory, now: number, locale?: string): { text: string; title: string } {
  const parts = [`updated ${when(memory.updatedAt, now, locale)}`];
  if (memory.createdAt !== memory.updatedAt) parts.push(`created ${when(memory.createdAt, now, locale)}`);
  if (memory.archivedAt !== null) parts.push(`archived ${when(memory.archivedAt, now, locale)}`);
  const full = (label: string, ms: number | null) => {
    const date = ms === null ? null : toDate(ms);
    return date === null ? null : `${label}: ${fullDateTime(date, locale)}`;
  };
  const title = [
    full("Created", memory.createdAt),
    full("Updated", memory.updatedAt),
    full("Archived", memory.archivedAt),
    full("Last used by an agent", memory.lastAccessedAt),
  ]
    .filter((line): line is string => line !== null)
    .join("\n");
  return { text: parts.join(" · "), title };
}

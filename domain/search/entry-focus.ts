/**
 * Which transcript entry shows a given id: what the transcript scrolls to when it is asked to focus an entry (a
 * search hit, a node of the session tree). Pure.
 *
 * The id may be a transcript entry id (the `data-entry-id` of a row: a session entry id, or `${callEntryId}:
 * ${toolCallId}` for a tool call) or any session entry id. A session entry that has no row of its own is shown
 * by the tool row of its call (an assistant message's tool calls) or of its result (a toolResult entry). An
 * exact row id wins over a tool row that names it.
 */

/** The fields of a transcript entry this looks at (TranscriptEntry has them). */
export interface FocusableEntry {
  readonly id: string;
  readonly type: string;
  readonly callEntryId?: string | null;
  readonly resultEntryId?: string | null;
}

/** The index of the entry that shows `target`, or -1 when none does (e.g. it is on another branch). */
export function indexShowing(entries: readonly FocusableEntry[], target: string): number {
  if (target === "") return -1;
  const exact = entries.findIndex((entry) => entry.id === target);
  if (exact >= 0) return exact;
  const result = entries.findIndex((entry) => entry.type === "tool" && entry.resultEntryId === target);
  if (result >= 0) return result;
  return entries.findIndex((entry) => entry.type === "tool" && entry.callEntryId === target);
}

/**
 * The session tree as a projection over decoded log records: entries are added in file order, headers and
 * malformed lines are ignored (the decoder counts those). See domain/session-tree.ts for the rules.
 *
 * Performance: each entry is shallowly frozen (`Object.freeze`) before it enters the draft. Immer skips frozen
 * values when it finalises a produce, so the entry's message content is never traversed; without this,
 * Immer's auto-freeze walks every nested block of every message (about 2x the cost of JSON.parse on a real
 * corpus). Entries are immutable by contract anyway; nested content is not frozen, so do not mutate it.
 */
import type { Draft } from "immer";
import type { LogRecord } from "../domain/session-log.ts";
import { addEntry, emptySessionTree, type SessionTreeState } from "../domain/session-tree.ts";
import type { Projection } from "./projection.ts";

export const sessionTreeProjection: Projection<SessionTreeState, LogRecord> = {
  name: "session-tree",
  version: 1,
  initial: emptySessionTree,
  apply(draft: Draft<SessionTreeState>, record: LogRecord): void {
    if (record.kind !== "entry") return;
    // A frozen entry is stored by reference: Immer neither walks nor deep-freezes it when the batch is
    // finalised, which would otherwise cost more than parsing the line (see the note above).
    const entry = Object.isFrozen(record.entry) ? record.entry : Object.freeze(record.entry);
    addEntry(draft as SessionTreeState, entry);
  },
};

/**
 * The session tree as a projection over decoded log records: entries are added in file order, headers and
 * malformed lines are ignored (the decoder counts those). See domain/session-tree.ts for the rules.
 *
 * Performance: one appended entry costs O(1) state updates whatever the session's size (bucketed entries and
 * children, chunked order: see domain/session-tree.ts), and entries are stored shallow-frozen, so Immer never
 * walks their message content when it finalises a batch.
 */
import type { Draft } from "immer";
import type { LogRecord } from "../domain/session-log.ts";
import { addEntry, emptySessionTree, type SessionTreeState } from "../domain/session-tree.ts";
import type { Projection } from "./projection.ts";

export const sessionTreeProjection: Projection<SessionTreeState, LogRecord> = {
  name: "session-tree",
  // 2: bucketed entries/children and chunked order (domain/chunked-collections.ts).
  version: 2,
  initial: emptySessionTree,
  apply(draft: Draft<SessionTreeState>, record: LogRecord): void {
    if (record.kind !== "entry") return;
    addEntry(draft as SessionTreeState, record.entry);
  },
};

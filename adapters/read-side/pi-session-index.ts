/**
 * The session index as Leyline runs it: pi's sessions folder, summarised by the session-summary projection
 * (the spec's SessionSummary), listed in descending `modified` order.
 */
import type { Kysely } from "kysely";
import type { SessionSummary } from "../../domain/session-summary.ts";
import { selectSessionSummary, sessionSummaryProjection, type SessionSummaryState } from "../../projections/session-summary.projection.ts";
import type { LeylineDatabase } from "../sqlite/leyline-database.ts";
import type { ProjectionSet } from "../projections/projection-runner.ts";
import { createSessionIndex, type SessionIndex, type SessionIndexOptions } from "./session-index.ts";
import { sessionsDirOf } from "../session-files/agent-dir.ts";

export const SESSION_INDEX_SCOPE = "session-index";

export const sessionSummarySet: ProjectionSet<SessionSummary> = {
  scope: SESSION_INDEX_SCOPE,
  projections: [sessionSummaryProjection],
  summarize: (states, file) => selectSessionSummary(states[sessionSummaryProjection.name] as SessionSummaryState, file),
};

/** Newest first by `modified` (ISO strings compare as times), then by path for a stable order. */
export function byModifiedDescending(a: SessionSummary, b: SessionSummary): number {
  const am = a.modified ?? "";
  const bm = b.modified ?? "";
  if (am !== bm) return am < bm ? 1 : -1;
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}

export interface PiSessionIndexOptions extends Omit<SessionIndexOptions<SessionSummary>, "set" | "sessionsDir" | "order" | "db"> {
  readonly db: Kysely<LeylineDatabase>;
  /** pi's agent dir (see `resolveAgentDir`). */
  readonly agentDir: string;
}

export function createPiSessionIndex(options: PiSessionIndexOptions): SessionIndex<SessionSummary> {
  return createSessionIndex({
    ...options,
    sessionsDir: sessionsDirOf(options.agentDir),
    set: sessionSummarySet,
    order: byModifiedDescending,
  });
}

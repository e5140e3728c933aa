/**
 * GET /api/pi/sessions's list: runtime-only sessions (open runtimes whose file, or id, the persisted list does
 * not have) first, in roster order, then the persisted sessions as given (the index orders them by `modified`,
 * newest first). Pure: the caller says how a runtime's file compares with the listed paths (`resolveFile`, the
 * server's `path.resolve`).
 */
import type { SessionSummary } from "./session-summary.ts";

/** What the list needs of an open runtime. */
export interface ListedRuntime {
  readonly sessionId: string;
  /** The session file, or null while the runtime has not written one. */
  readonly sessionFile: string | null;
  /** Its list row (asked only for a runtime-only session). */
  summary(): SessionSummary;
}

/** The open runtimes whose file (or id) the persisted list does not have, as list rows, in roster order. */
export function runtimeOnlySessions(
  persisted: Iterable<SessionSummary>,
  runtimes: readonly ListedRuntime[],
  resolveFile: (file: string) => string,
): SessionSummary[] {
  const persistedPaths = new Set<string>();
  const persistedIds = new Set<string>();
  for (const summary of persisted) {
    persistedPaths.add(summary.path);
    persistedIds.add(summary.id);
  }
  const runtimeOnly: SessionSummary[] = [];
  for (const runtime of runtimes) {
    const file = runtime.sessionFile;
    if ((file !== null && persistedPaths.has(resolveFile(file))) || persistedIds.has(runtime.sessionId)) continue;
    runtimeOnly.push(runtime.summary());
  }
  return runtimeOnly;
}

export function sessionList(
  persisted: readonly SessionSummary[],
  runtimes: readonly ListedRuntime[],
  resolveFile: (file: string) => string,
): SessionSummary[] {
  return [...runtimeOnlySessions(persisted, runtimes, resolveFile), ...persisted];
}

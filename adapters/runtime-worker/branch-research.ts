/**
 * The research state of a live session's current branch, for worker snapshots (spec/deep-research.md:
 * "Research state also travels in active_session snapshots").
 *
 * Cheap for normal sessions: a session manager is scanned once for `leyline-research` entries, then only
 * its new entries are looked at (pi's entries are append-only; a shrink or a new session id starts over).
 * Until the session has a research entry the answer is null without walking the branch. Once it has one,
 * the branch is folded with `researchStateFromEntries` when the leaf or the entry count changed, and the
 * last result is reused otherwise.
 */
import { isResearchEntry } from "../../domain/research/research-event.ts";
import { researchStateFromEntries } from "../../domain/research/research.fold.ts";
import { RESEARCH_CUSTOM_TYPE, type ResearchState } from "../../domain/research/research-types.ts";
import type { SessionEntry } from "../../domain/session-log.ts";

/** What is read from pi's `SessionManager` (structurally). */
export interface ResearchBranchSource {
  getSessionId(): string;
  getEntries(): SessionEntry[];
  getLeafId(): string | null;
  getBranch(fromId?: string): SessionEntry[];
}

interface BranchResearchCache {
  sessionId: string;
  /** Entries already looked at for a research entry. */
  scanned: number;
  /** The session has at least one research entry (any branch). */
  found: boolean;
  /** `leafId:entryCount` of the cached fold. */
  key: string;
  state: ResearchState | null;
}

const caches = new WeakMap<object, BranchResearchCache>();

/** The research state of the session's current branch, or null (no research entry, or none of this session). */
export function branchResearchState(source: ResearchBranchSource): ResearchState | null {
  const sessionId = source.getSessionId();
  const entries = source.getEntries();
  let cache = caches.get(source);
  if (cache === undefined || cache.sessionId !== sessionId || entries.length < cache.scanned) {
    cache = { sessionId, scanned: 0, found: false, key: "", state: null };
    caches.set(source, cache);
  }
  for (let i = cache.scanned; i < entries.length && !cache.found; i++) {
    const entry = entries[i];
    if (entry !== undefined && isResearchEntry(entry)) cache.found = true;
  }
  cache.scanned = entries.length;
  if (!cache.found) return null;
  const key = `${source.getLeafId() ?? ""}:${entries.length}`;
  if (cache.key !== key) {
    cache.state = researchStateFromEntries(sessionId, source.getBranch());
    cache.key = key;
  }
  return cache.state;
}

/** What `watchResearchAppends` wraps (pi's `SessionManager.appendCustomEntry`, which emits no session event). */
export interface CustomEntryAppender {
  appendCustomEntry(customType: string, data?: unknown): string;
}

/**
 * Calls `onAppend` after every `leyline-research` entry appended through `manager` (extensions append with
 * `pi.appendEntry`, which pi does not announce with any event: without this, research progress recorded
 * inside a long tool call, e.g. subagent thread updates, would reach the browser only at the next pi event).
 * The worker calls it when it binds a session and schedules a snapshot from `onAppend`. Returns the undo
 * function (restores the manager's own method). A throwing listener never breaks the append.
 */
export function watchResearchAppends(manager: CustomEntryAppender, onAppend: () => void): () => void {
  const hadOwn = Object.hasOwn(manager, "appendCustomEntry");
  const original = manager.appendCustomEntry;
  const wrapped = (customType: string, data?: unknown): string => {
    const id = original.call(manager, customType, data);
    if (customType === RESEARCH_CUSTOM_TYPE) {
      try {
        onAppend();
      } catch {
        // the entry is written; a failing listener only loses one early snapshot
      }
    }
    return id;
  };
  manager.appendCustomEntry = wrapped;
  return () => {
    if (manager.appendCustomEntry !== wrapped) return;
    if (hadOwn) manager.appendCustomEntry = original;
    else delete (manager as Partial<CustomEntryAppender>).appendCustomEntry;
  };
}

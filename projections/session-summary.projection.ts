/**
 * Session summary projection: everything the session list needs about one file, folded incrementally
 * from its decoded lines. File-wide facts (name, message count, first message, activity time) follow
 * pi's listing; research state is branch-local, so it is kept for the active branch only.
 *
 * Research on the active branch without a full tree: only entries that descend from a research event
 * of this session can see research state, so the projection remembers parents for those entries alone
 * (`researchParents`). A normal session keeps none, which keeps the state small enough to checkpoint
 * thousands of files. Appending to the leaf applies one event; moving to another branch refolds the
 * research events on the new path (rare, and bounded by the research entries on it).
 */
import { addEntryUsage, emptySessionUsage, type SessionUsage } from "../domain/session-usage.ts";
import { current, isDraft, type Draft } from "immer";
import type { LogRecord, SessionEntry } from "../domain/session-log.ts";
import {
  FIRST_MESSAGE_LIMIT,
  NO_MESSAGES,
  activityTime,
  isSubagentMarker,
  sessionInfoName,
  truncateText,
  userMessageText,
  type SessionSummary,
} from "../domain/session-summary.ts";
import type { ResearchEvent, ResearchState } from "../domain/research/research-types.ts";
import { parseResearchEvent } from "../domain/research/research-event.ts";
import { applyResearchEvent, summarizeResearch } from "../domain/research/research.fold.ts";
import type { Projection } from "./projection.ts";

interface StoredResearchEvent {
  event: ResearchEvent;
  timestampMs: number;
}

export interface SessionSummaryState {
  header: { id: string; cwd: string; timestamp: string; parentSession: string | null } | null;
  name: string | null;
  messageCount: number;
  firstUserMessage: string | null;
  lastActivityMs: number | null;
  isSubagentSession: boolean;
  malformedLines: number;
  leafId: string | null;
  /** Parent links of the entries that have a research event of this session on their path (or are one). */
  researchParents: Record<string, string | null>;
  /** This session's research events by entry id. */
  researchEvents: Record<string, StoredResearchEvent>;
  /** Research state of the active branch. */
  research: ResearchState | null;
  /** Model usage over the whole file (domain/session-usage.ts); in the detail, not the list. */
  usage: SessionUsage;
}

function initial(): SessionSummaryState {
  return {
    header: null,
    name: null,
    messageCount: 0,
    firstUserMessage: null,
    lastActivityMs: null,
    isSubagentSession: false,
    malformedLines: 0,
    leafId: null,
    researchParents: {},
    researchEvents: {},
    research: null,
    usage: emptySessionUsage(),
  };
}

function ownResearchEvent(state: SessionSummaryState, entry: SessionEntry): StoredResearchEvent | null {
  if (entry.type !== "custom" || !state.header) return null;
  const event = parseResearchEvent(entry);
  if (!event || event.sessionId !== state.header.id) return null;
  const parsed = Date.parse(entry.timestamp);
  return { event, timestampMs: Number.isNaN(parsed) ? 0 : parsed };
}

/** Research state of the branch ending at `leafId`, refolded from the research events on its path. */
function researchOnPath(state: Draft<SessionSummaryState>, leafId: string | null): ResearchState | null {
  const path: string[] = [];
  const seen = new Set<string>();
  let id = leafId;
  while (id !== null && id in state.researchParents && !seen.has(id)) {
    seen.add(id);
    if (id in state.researchEvents) path.push(id);
    id = state.researchParents[id] ?? null;
  }
  const draftEvents = state.researchEvents;
  const events = (isDraft(draftEvents) ? current(draftEvents) : draftEvents) as Record<string, StoredResearchEvent>;
  let research: ResearchState | null = null;
  for (let i = path.length - 1; i >= 0; i--) {
    const entryId = path[i] as string;
    const stored = events[entryId] as StoredResearchEvent;
    research = applyResearchEvent(research, stored.event, {
      entryId,
      timestampMs: stored.timestampMs,
    });
  }
  return research;
}

/** The active branch's research state as a plain object (the research fold is not an Immer recipe). */
function plainResearch(state: Draft<SessionSummaryState>): ResearchState | null {
  const research = state.research;
  if (research === null) return null;
  return (isDraft(research) ? current(research) : research) as ResearchState;
}

function applyEntry(state: Draft<SessionSummaryState>, entry: SessionEntry): void {
  addEntryUsage(state.usage, entry);
  if (entry.type === "message") {
    state.messageCount += 1;
    if (state.firstUserMessage === null) {
      const text = userMessageText(entry);
      if (text !== null) state.firstUserMessage = truncateText(text, FIRST_MESSAGE_LIMIT);
    }
    const time = activityTime(entry);
    if (time !== null && time > (state.lastActivityMs ?? 0)) state.lastActivityMs = time;
  } else if (entry.type === "session_info") {
    state.name = sessionInfoName(entry) ?? null;
  } else if (isSubagentMarker(entry)) {
    state.isSubagentSession = true;
  }

  const extendsLeaf = entry.parentId === state.leafId;
  const stored = ownResearchEvent(state, entry);
  const parentTracked = entry.parentId !== null && entry.parentId in state.researchParents;
  if (stored || parentTracked) {
    state.researchParents[entry.id] = parentTracked ? entry.parentId : null;
  }
  if (stored) state.researchEvents[entry.id] = stored as Draft<StoredResearchEvent>;
  state.leafId = entry.id;

  if (extendsLeaf) {
    if (stored) {
      state.research = applyResearchEvent(plainResearch(state), stored.event, {
        entryId: entry.id,
        timestampMs: stored.timestampMs,
      }) as Draft<ResearchState> | null;
    }
  } else if (Object.keys(state.researchEvents).length > 0) {
    state.research = researchOnPath(state, entry.id) as Draft<ResearchState> | null;
  }
}

export const sessionSummaryProjection: Projection<SessionSummaryState, LogRecord> = {
  name: "session-summary",
  // 2: completedThreadCount counts finished threads (done or error); version-1 checkpoints counted done only.
  // 3: the file's model usage (usage totals).
  version: 3,
  initial,
  apply(state, record) {
    switch (record.kind) {
      case "header":
        if (state.header === null) {
          const { id, cwd, timestamp, parentSession } = record.header;
          state.header = {
            id,
            cwd: typeof cwd === "string" ? cwd : "",
            timestamp: typeof timestamp === "string" ? timestamp : "",
            parentSession: typeof parentSession === "string" ? parentSession : null,
          };
        }
        return;
      case "entry":
        if (state.header !== null) applyEntry(state, record.entry);
        return;
      case "malformed":
        state.malformedLines += 1;
        return;
      default:
        return;
    }
  },
};

function isoOrUndefined(ms: number): string | undefined {
  return Number.isFinite(ms) ? new Date(ms).toISOString() : undefined;
}

/**
 * The SessionSummary of a folded file, or null when the file is not a session. `mtimeMs` is the file's
 * modification time, used for `modified` when the session has neither message times nor a valid header
 * time (as pi does).
 */
export function selectSessionSummary(state: SessionSummaryState, file: { path: string; mtimeMs: number }): SessionSummary | null {
  const header = state.header;
  if (!header) return null;
  const created = Date.parse(header.timestamp);
  const modifiedMs =
    state.lastActivityMs !== null && state.lastActivityMs > 0 ? state.lastActivityMs : Number.isNaN(created) ? file.mtimeMs : created;
  const research = state.research ? summarizeResearch(state.research) : null;
  const firstMessage =
    state.firstUserMessage ?? (research && research.objective ? truncateText(research.objective, FIRST_MESSAGE_LIMIT) : NO_MESSAGES);
  const summary: SessionSummary = {
    id: header.id,
    path: file.path,
    cwd: header.cwd,
    isSubagentSession: state.isSubagentSession,
    research,
    firstMessage,
    messageCount: state.messageCount,
  };
  if (state.name !== null) summary.name = state.name;
  if (header.parentSession !== null) summary.parentSessionPath = header.parentSession;
  const modified = isoOrUndefined(modifiedMs);
  if (modified !== undefined) summary.modified = modified;
  if (!Number.isNaN(created)) summary.timestamp = new Date(created).toISOString();
  return summary;
}

/** Full research state of the active branch (session detail and runtime snapshots carry it). */
export function selectResearchState(state: SessionSummaryState): ResearchState | null {
  return state.research;
}

/** Response pieces several route contracts share: the domain objects the API sends. */
import { Type, type Static } from "typebox";
import type { DirectoryEntry as DirectoryEntryType, DirectoryListing as DirectoryListingType } from "../directory-listing.ts";
import type { ResetPreview as ResetPreviewType } from "../reset-preview.ts";
import type { Active as ActiveType, ActiveSnapshot as ActiveSnapshotType } from "../runtime/runtime-types.ts";
import type { SessionDetail as SessionDetailType } from "../session-detail.ts";
import type { SessionSummary as SessionSummaryType } from "../session-summary.ts";
import { RESEARCH_PHASES, RESEARCH_STATUSES, type ResearchSummary as ResearchSummaryType } from "../research/research-types.ts";
import { domainObject, literals, type SameType } from "./schema-kit.ts";

export const ResearchSummary = Type.Object(
  {
    sessionId: Type.String(),
    status: literals(RESEARCH_STATUSES),
    phase: literals(RESEARCH_PHASES),
    objective: Type.String(),
    reportTitle: Type.String(),
    reportEntryId: Type.String(),
    threadCount: Type.Number(),
    completedThreadCount: Type.Number(),
    sourceCount: Type.Number(),
    citedSourceCount: Type.Number(),
    excludedSourceCount: Type.Number(),
    updatedAt: Type.Number(),
  },
  { title: "ResearchSummary" },
);

/** The spec's SessionSummary: one row of the session list. */
export const SessionSummary = Type.Object(
  {
    id: Type.String(),
    path: Type.String(),
    cwd: Type.String(),
    name: Type.Optional(Type.String()),
    parentSessionPath: Type.Optional(Type.String()),
    isSubagentSession: Type.Boolean(),
    research: Type.Union([ResearchSummary, Type.Null()]),
    firstMessage: Type.String(),
    messageCount: Type.Number(),
    modified: Type.Optional(Type.String()),
    timestamp: Type.Optional(Type.String()),
  },
  { title: "SessionSummary" },
);
const _summary: SameType<Static<typeof SessionSummary>, SessionSummaryType> = true;
const _research: SameType<Static<typeof ResearchSummary>, ResearchSummaryType> = true;

export const DirectoryEntry = Type.Object({ name: Type.String(), fullPath: Type.String(), path: Type.String(), hidden: Type.Boolean() });
export const DirectoryListing = Type.Object(
  {
    parentPath: Type.String(),
    path: Type.String(),
    parent: Type.String(),
    home: Type.String(),
    entries: Type.Array(DirectoryEntry),
    directories: Type.Array(DirectoryEntry),
    root: Type.String(),
  },
  { title: "DirectoryListing" },
);
const _entry: SameType<Static<typeof DirectoryEntry>, DirectoryEntryType> = true;
const _listing: SameType<Static<typeof DirectoryListing>, DirectoryListingType> = true;

export const ResetPreview = Type.Object({
  entryId: Type.String(),
  removedEntryCount: Type.Number(),
  removedMessageCount: Type.Number(),
  removedOtherBranchEntryCount: Type.Number(),
  keptEntryCount: Type.Number(),
});
const _preview: SameType<Static<typeof ResetPreview>, ResetPreviewType> = true;
void [_summary, _research, _entry, _listing, _preview];

/** An open runtime's full snapshot (spec "Active"). */
export const Active = domainObject<ActiveType>(
  "Active",
  {
    id: Type.String(),
    path: Type.String(),
    cwd: Type.String(),
    diagnostics: Type.Array(Type.Unknown()),
    state: Type.Object({}, { additionalProperties: true }),
  },
  "An open runtime's snapshot: its session, model, streaming state, prompt queue and extension UI (domain/runtime/runtime-types.ts).",
);

/** A full or compact runtime snapshot (the events socket's roster and `active_session`). */
export const ActiveSnapshot = domainObject<ActiveSnapshotType>(
  "ActiveSnapshot",
  { id: Type.String(), state: Type.Object({}, { additionalProperties: true }) },
  "A full snapshot (Active) for the focused session, a compact one (prompt queue counts, no confirmations) for the others.",
);

/** GET /api/pi/sessions/:id: a session's header fields and its transcript. */
export const SessionDetail = domainObject<SessionDetailType>(
  "SessionDetail",
  {
    session: Type.Object(
      { id: Type.String(), cwd: Type.String(), sessionFile: Type.String(), fileVersion: Type.Number() },
      { additionalProperties: true },
    ),
    entries: Type.Array(Type.Object({ id: Type.String(), type: Type.String(), timestamp: Type.String() }, { additionalProperties: true })),
  },
  "A session's header fields (SessionDetailSession) and its transcript entries (domain/session-detail.ts, domain/transcript/transcript-types.ts).",
);

/** `{ path }` of the trash copy an action made (null when there was no file to copy). */
export const Trashed = Type.Object({ path: Type.Union([Type.String(), Type.Null()]) });

import { defineStore } from "pinia";
import { computed, ref, shallowRef } from "vue";
import type { ResearchSummary } from "../../../domain/research/research-types.ts";
import {
  applySessionListDelta,
  compareSessionRows,
  sessionRowKey,
  type SessionIndexStatus,
  type SessionListDelta,
  type SessionListSnapshot,
  type SessionRow,
} from "../../../domain/live/session-list.ts";
import type { SessionSummary } from "../../../domain/session-summary.ts";
import type { DeleteSessionResponse, RenameSessionResponse, SessionDetailSession } from "../api/dto.ts";
import { http } from "../api/http.ts";
import { backendSettingKey, readSetting, SETTING_KEYS, writeSetting } from "../lib/local-storage.ts";
import { groupByDay, sessionDayGroup } from "../lib/session-groups.ts";
import { recentProjects, visibleSessions } from "../lib/session-search.ts";
import { nestSubagents, type SessionNode } from "../lib/session-tree.ts";
import { usePinsStore } from "./pins.store.ts";

export type ListStatus = "idle" | "loading" | "ready";

/** The list row of a session detail (its research state reduced to the summary the list carries). */
export function summaryOfDetail(session: SessionDetailSession): SessionSummary {
  const { sessionFile: _file, contextTokens: _tokens, created: _created, contextUsage: _usage, research, ...rest } = session;
  let summary: ResearchSummary | null = null;
  if (research !== null) {
    const {
      version: _v,
      strategy: _s,
      note: _n,
      threads: _t,
      sources: _src,
      citedSourceIds: _c,
      error: _e,
      createdAt: _ca,
      completedAt: _co,
      reportRequestedAt: _r,
      lastEventId: _l,
      ...researchSummary
    } = research;
    summary = researchSummary;
  }
  return { ...rest, research: summary };
}

/**
 * The server's rows with the local changes not confirmed yet: a row by session id replaces the server's row with
 * that id (or comes first when the server has none), null hides it. Order: the server's.
 */
export function withLocalChanges(rows: readonly SessionRow[], local: Readonly<Record<string, SessionRow | null>>): SessionRow[] {
  const ids = Object.keys(local);
  if (ids.length === 0) return rows as SessionRow[];
  const seen = new Set<string>();
  const out: SessionRow[] = [];
  for (const row of rows) {
    if (!(row.id in local)) {
      out.push(row);
      continue;
    }
    seen.add(row.id);
    const replacement = local[row.id];
    if (replacement !== null && replacement !== undefined) out.push(replacement);
  }
  const added = ids.flatMap((id) => {
    const row = local[id];
    return seen.has(id) || row === null || row === undefined ? [] : [row];
  });
  return added.length === 0 ? out : [...added.sort(compareSessionRows), ...out];
}

/**
 * The session list and what the sidebar derives from it: the current project, the search query (across
 * projects), sessions nested under their parent and grouped by day, and the index status (files on disk, listed,
 * unreadable with their paths).
 *
 * The list is a read model on the events socket (domain/live/session-list.ts): `session_list` (a snapshot, also
 * after a fresh stream), then `session_list_delta`s, applied with `applySessionListDelta`; no HTTP read. Until a
 * fresh stream's snapshot arrives, the rows shown stay, marked `stale`.
 *
 * Rename, delete and a session just created change the list at once, locally (by session id): the server's delta
 * for that session replaces the local change when it arrives (the server wins). A local change from an answer is
 * skipped when the server already reported that session after the request was sent.
 */
export const useSessionsStore = defineStore("sessions", () => {
  const pins = usePinsStore();
  /** The server's rows, in list order. */
  const rows = shallowRef<SessionRow[]>([]);
  /** Local changes the server has not confirmed yet, by session id (null: deleted). */
  const local = shallowRef<Record<string, SessionRow | null>>({});
  const status = ref<ListStatus>("idle");
  /** The rows are from a stream that was replaced: the new stream's snapshot is on its way. */
  const stale = ref(false);
  const revision = ref(0);
  const query = ref("");
  const project = ref<string | null>(readSetting(backendSettingKey(SETTING_KEYS.project)));
  const indexStatus = ref<SessionIndexStatus | null>(null);
  /** The clock the day groups use; refreshed with each snapshot and by `tick()`. */
  const now = ref(new Date());

  /** Server reports counted (snapshots and deltas), and the count at which each session id was last reported. */
  let reports = 0;
  let lastSnapshot = 0;
  const reportedAt = new Map<string, number>();

  const sessions = computed<SessionRow[]>(() => withLocalChanges(rows.value, local.value));
  const visible = computed(() => visibleSessions(sessions.value, { query: query.value, cwd: project.value }));
  const tree = computed<SessionNode[]>(() => nestSubagents(visible.value));
  const groups = computed(() => groupByDay(tree.value, (node) => sessionDayGroup(node.session, now.value)));
  const projects = computed(() => recentProjects(sessions.value));
  const searching = computed(() => query.value.trim() !== "");

  /** Whether the server reported the session since `mark` (its report is newer than a local change). */
  function reportedSince(id: string, mark: number): boolean {
    return lastSnapshot > mark || (reportedAt.get(id) ?? -1) > mark;
  }

  function setLocal(id: string, row: SessionRow | null | undefined): void {
    const { [id]: _old, ...rest } = local.value;
    local.value = row === undefined ? rest : { ...rest, [id]: row };
  }

  /** `session_list`: the whole list (a new stream). */
  function applyListSnapshot(snapshot: SessionListSnapshot): void {
    reports += 1;
    lastSnapshot = reports;
    reportedAt.clear();
    rows.value = [...snapshot.sessions].sort(compareSessionRows);
    local.value = {};
    revision.value = snapshot.revision;
    indexStatus.value = snapshot.status;
    status.value = "ready";
    stale.value = false;
    now.value = new Date();
  }

  /** `session_list_delta`: rows added, changed or removed. Ignored until the stream's snapshot arrived. */
  function applyListDelta(delta: SessionListDelta): void {
    if (status.value !== "ready" || stale.value) return;
    reports += 1;
    const idsByKey = new Map(rows.value.map((row) => [sessionRowKey(row), row.id]));
    const reported = [...delta.upserted.map((row) => row.id), ...delta.removed.flatMap((key) => idsByKey.get(key) ?? [])];
    for (const id of reported) reportedAt.set(id, reports);
    if (reported.some((id) => id in local.value)) {
      const next = { ...local.value };
      for (const id of reported) delete next[id];
      local.value = next;
    }
    rows.value = applySessionListDelta(rows.value, delta);
    revision.value = delta.revision;
    indexStatus.value = delta.status;
  }

  /** The events stream was replaced (or is starting): keep the rows, marked stale, until its snapshot. */
  function markStale(): void {
    if (status.value === "ready") stale.value = true;
    else status.value = "loading";
  }

  function tick(): void {
    now.value = new Date();
  }

  function setProject(cwd: string | null): void {
    const value = cwd === null || cwd.trim() === "" ? null : cwd.trim();
    project.value = value;
    writeSetting(backendSettingKey(SETTING_KEYS.project), value);
  }

  function setQuery(value: string): void {
    query.value = value;
  }

  function byId(id: string): SessionRow | undefined {
    return sessions.value.find((s) => s.id === id);
  }

  /** Shows a session the server does not list yet (one just created); the server's row replaces it. */
  function upsert(summary: SessionSummary): void {
    if (rows.value.some((row) => row.id === summary.id)) return;
    setLocal(summary.id, summary);
  }

  /** PATCH /api/pi/sessions/:id { name }; the row shows the new name until the server's delta confirms it. */
  async function rename(id: string, name: string): Promise<RenameSessionResponse> {
    const mark = reports;
    const response = await http.patch<RenameSessionResponse>(`/api/pi/sessions/${encodeURIComponent(id)}`, { name });
    const shown = byId(id);
    if (shown !== undefined && !reportedSince(id, mark)) {
      const renamed: SessionRow = { ...shown, ...summaryOfDetail(response.session) };
      setLocal(id, renamed);
    }
    return response;
  }

  /**
   * DELETE /api/pi/sessions/:id (the file moves to leyline-trash); the caller confirms first. Hidden at once, and
   * unpinned (so our own deletes leave no stale pin; a failed unpin says so in a notice).
   */
  async function remove(id: string): Promise<DeleteSessionResponse> {
    const mark = reports;
    const response = await http.delete<DeleteSessionResponse>(`/api/pi/sessions/${encodeURIComponent(id)}`);
    if (!reportedSince(id, mark) && rows.value.some((row) => row.id === id)) setLocal(id, null);
    void pins.unpin(id);
    return response;
  }

  return {
    sessions,
    status,
    stale,
    revision,
    query,
    project,
    indexStatus,
    now,
    visible,
    tree,
    groups,
    projects,
    searching,
    applyListSnapshot,
    applyListDelta,
    markStale,
    tick,
    setProject,
    setQuery,
    byId,
    upsert,
    rename,
    remove,
  };
});

import { defineStore } from "pinia";
import { computed, ref } from "vue";
import type { ResearchSummary } from "../../../domain/research/research-types.ts";
import type { SessionSummary } from "../../../domain/session-summary.ts";
import type {
  DeleteSessionResponse,
  DiagnosticsResponse,
  RenameSessionResponse,
  SessionDetailSession,
  SessionIndexStatus,
  SessionsResponse,
} from "../api/dto.ts";
import { errorMessage, http } from "../api/http.ts";
import { readSetting, SETTING_KEYS, writeSetting } from "../lib/local-storage.ts";
import { coalescedReload } from "../lib/coalesced-reload.ts";
import { groupByDay, sessionDayGroup } from "../lib/session-groups.ts";
import { recentProjects, visibleSessions } from "../lib/session-search.ts";
import { nestSubagents, type SessionNode } from "../lib/session-tree.ts";

export type ListStatus = "idle" | "loading" | "ready" | "error";

/** The list row of a session detail (its research state reduced to the summary the list carries). */
export function summaryOfDetail(session: SessionDetailSession): SessionSummary {
  const { sessionFile: _file, contextTokens: _tokens, created: _created, contextUsage: _usage, research, ...rest } = session;
  let summary: ResearchSummary | null = null;
  if (research !== null) {
    const { version: _v, strategy: _s, note: _n, threads: _t, sources: _src, citedSourceIds: _c, error: _e, createdAt: _ca, completedAt: _co, reportRequestedAt: _r, lastEventId: _l, ...researchSummary } = research;
    summary = researchSummary;
  }
  return { ...rest, research: summary };
}

/**
 * The session list (GET /api/pi/sessions) and what the sidebar derives from it: the current project, the
 * search query (across projects), sessions nested under their parent and grouped by day, and the index
 * status line. The on-disk file count comes from GET /internal/diagnostics (no /api route reports it).
 */
export const useSessionsStore = defineStore("sessions", () => {
  const sessions = ref<SessionSummary[]>([]);
  const status = ref<ListStatus>("idle");
  const error = ref("");
  const query = ref("");
  const project = ref<string | null>(readSetting(SETTING_KEYS.project));
  const indexStatus = ref<SessionIndexStatus | null>(null);
  /** The clock the day groups use; refreshed with the list and by `tick()`. */
  const now = ref(new Date());
  const refreshCount = ref(0);

  const visible = computed(() => visibleSessions(sessions.value, { query: query.value, cwd: project.value }));
  const tree = computed<SessionNode[]>(() => nestSubagents(visible.value));
  const groups = computed(() => groupByDay(tree.value, (node) => sessionDayGroup(node.session, now.value)));
  const projects = computed(() => recentProjects(sessions.value));
  const searching = computed(() => query.value.trim() !== "");

  const listReload = coalescedReload(() => loadOnce());
  let soonTimer: ReturnType<typeof setTimeout> | null = null;

  async function loadOnce(): Promise<void> {
    if (status.value !== "ready") status.value = "loading";
    const [list, diagnostics] = await Promise.allSettled([
      http.get<SessionsResponse>("/api/pi/sessions"),
      http.get<DiagnosticsResponse>("/internal/diagnostics"),
    ]);
    now.value = new Date();
    refreshCount.value += 1;
    if (list.status === "fulfilled" && Array.isArray(list.value?.sessions)) {
      sessions.value = list.value.sessions;
      status.value = "ready";
      error.value = "";
    } else {
      status.value = "error";
      error.value = list.status === "rejected" ? errorMessage(list.reason) : "The session list answer has no sessions.";
    }
    if (diagnostics.status === "fulfilled") indexStatus.value = diagnostics.value?.sessionIndex ?? null;
  }

  /** Reloads the list (coalesced: a call during a load runs one more load after it). */
  function refresh(): Promise<void> {
    return listReload.reload();
  }

  /** A refresh after `delayMs` of quiet (bursts of events cause one load). */
  function refreshSoon(delayMs = 1200): void {
    if (soonTimer !== null) clearTimeout(soonTimer);
    soonTimer = setTimeout(() => {
      soonTimer = null;
      void refresh();
    }, delayMs);
  }

  function tick(): void {
    now.value = new Date();
  }

  function setProject(cwd: string | null): void {
    const value = cwd === null || cwd.trim() === "" ? null : cwd.trim();
    project.value = value;
    writeSetting(SETTING_KEYS.project, value);
  }

  function setQuery(value: string): void {
    query.value = value;
  }

  function byId(id: string): SessionSummary | undefined {
    return sessions.value.find((s) => s.id === id);
  }

  /** Puts a session row in the list (new or changed), keeping order for an existing one. */
  function upsert(summary: SessionSummary): void {
    const index = sessions.value.findIndex((s) => s.id === summary.id);
    if (index === -1) sessions.value = [summary, ...sessions.value];
    else sessions.value = sessions.value.map((s, i) => (i === index ? summary : s));
  }

  /** PATCH /api/pi/sessions/:id { name }; returns the renamed session's detail row. */
  async function rename(id: string, name: string): Promise<RenameSessionResponse> {
    const response = await http.patch<RenameSessionResponse>(`/api/pi/sessions/${encodeURIComponent(id)}`, { name });
    upsert(summaryOfDetail(response.session));
    return response;
  }

  /** DELETE /api/pi/sessions/:id (the file moves to leyline-trash); the caller confirms first. */
  async function remove(id: string): Promise<DeleteSessionResponse> {
    const response = await http.delete<DeleteSessionResponse>(`/api/pi/sessions/${encodeURIComponent(id)}`);
    sessions.value = sessions.value.filter((s) => s.id !== id);
    void refresh();
    return response;
  }

  return {
    sessions,
    status,
    error,
    query,
    project,
    indexStatus,
    now,
    refreshCount,
    visible,
    tree,
    groups,
    projects,
    searching,
    refresh,
    refreshSoon,
    tick,
    setProject,
    setQuery,
    byId,
    upsert,
    rename,
    remove,
  };
});

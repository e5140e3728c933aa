/**
 * Which sessions the sidebar lists: the current project's sessions (its folder, plus subagent sessions that
 * descend from them, wherever they ran), or, while a search query is typed, matching sessions of every
 * project. A query is split into words; every word must occur (case-insensitive) in the name, the first
 * message, the folder or the id.
 */
import type { SessionSummary } from "../../../domain/session-summary.ts";
import { parseTime, sessionTime } from "./session-groups.ts";

export function queryWords(query: string): string[] {
  return query
    .toLowerCase()
    .split(/\s+/)
    .filter((word) => word !== "");
}

export function matchesQuery(session: SessionSummary, words: readonly string[]): boolean {
  if (words.length === 0) return true;
  const haystack = [session.name ?? "", session.firstMessage, session.cwd, session.id, session.research?.objective ?? ""]
    .join("\n")
    .toLowerCase();
  return words.every((word) => haystack.includes(word));
}

/** Folder paths compare without trailing slashes. */
export function sameFolder(a: string, b: string): boolean {
  const trim = (p: string) => (p.length > 1 ? p.replace(/\/+$/, "") : p);
  return trim(a) === trim(b);
}

/** The sessions of a project folder plus their subagent descendants (in list order). */
export function projectSessions(sessions: readonly SessionSummary[], cwd: string): SessionSummary[] {
  const included = new Set<string>();
  for (const s of sessions) if (sameFolder(s.cwd, cwd)) included.add(s.path || s.id);
  // Add descendants until nothing changes (chains are short; bounded by the list size).
  for (let changed = true, rounds = 0; changed && rounds < sessions.length; rounds++) {
    changed = false;
    for (const s of sessions) {
      const key = s.path || s.id;
      if (included.has(key)) continue;
      if (s.isSubagentSession && s.parentSessionPath !== undefined && included.has(s.parentSessionPath)) {
        included.add(key);
        changed = true;
      }
    }
  }
  return sessions.filter((s) => included.has(s.path || s.id));
}

/** Sidebar rows before nesting: search results across projects, else the project's sessions (all when none). */
export function visibleSessions(sessions: readonly SessionSummary[], options: { query: string; cwd: string | null }): SessionSummary[] {
  const words = queryWords(options.query);
  if (words.length > 0) return sessions.filter((s) => matchesQuery(s, words));
  if (options.cwd === null || options.cwd === "") return [...sessions];
  return projectSessions(sessions, options.cwd);
}

export interface ProjectFolder {
  cwd: string;
  sessionCount: number;
  /** Latest activity (ISO) among its sessions. */
  latest: string;
}

/** Project folders that have sessions, most recently active first (subagent sessions are not counted). */
export function recentProjects(sessions: readonly SessionSummary[]): ProjectFolder[] {
  const byCwd: Record<string, ProjectFolder> = {};
  for (const s of sessions) {
    if (s.isSubagentSession || s.cwd === "") continue;
    const time = sessionTime(s) ?? "";
    const entry = byCwd[s.cwd];
    if (entry === undefined) byCwd[s.cwd] = { cwd: s.cwd, sessionCount: 1, latest: time };
    else {
      entry.sessionCount += 1;
      if ((parseTime(time) ?? 0) > (parseTime(entry.latest) ?? 0)) entry.latest = time;
    }
  }
  return Object.values(byCwd).sort((a, b) => (parseTime(b.latest) ?? 0) - (parseTime(a.latest) ?? 0) || a.cwd.localeCompare(b.cwd));
}

/** The title a session row shows: its name, else its first message, else a placeholder. */
export function sessionTitle(session: { name?: string | undefined; firstMessage: string }): string {
  const name = session.name?.trim();
  if (name) return name;
  const first = session.firstMessage.trim();
  if (first && first !== "(no messages)") return first;
  return "New session";
}

/** The last path segment of a folder, for compact labels. */
export function folderName(cwd: string): string {
  const trimmed = cwd.replace(/\/+$/, "");
  const name = trimmed.slice(trimmed.lastIndexOf("/") + 1);
  return name === "" ? cwd || "/" : name;
}

/**
 * The Memory Inspector's records (spec "Memory Inspector routes"): a memory is a Markdown note kept for a scope
 * (every project, one project, one session), active or archived, written by a person or an agent. Types and
 * constants only: the server stores them in memory.sqlite (adapters/memories), the client shows them.
 */

import type { SubagentContext } from "../subagent/subagent-types.ts";

export const MEMORY_SCOPES = ["global", "project", "session"] as const;
export type MemoryScope = (typeof MEMORY_SCOPES)[number];

export const MEMORY_STATUSES = ["active", "archived"] as const;
export type MemoryStatus = (typeof MEMORY_STATUSES)[number];

export const MEMORY_SOURCES = ["agent", "user", "system", "import"] as const;
export type MemorySource = (typeof MEMORY_SOURCES)[number];

/**
 * Where a request stands (spec MemoryContext): the project of its cwd and, with a sessionPath, its session. The
 * same context as the subagent and vision routes (one resolution: adapters/subagents/subagent-context.ts); only
 * with a sessionPath is the session scope visible and writable.
 */
export type MemoryContext = SubagentContext;

/** One record (spec Memory). Times are milliseconds since the epoch. */
export interface Memory {
  id: string;
  scope: MemoryScope;
  /** The project of a project or session memory; null for a global one. */
  projectId: string | null;
  projectRoot: string | null;
  projectName: string | null;
  /** The session of a session memory; null otherwise. */
  sessionId: string | null;
  sessionFile: string | null;
  /** The folder it was written from. */
  cwd: string | null;
  contentMd: string;
  /** Why it was kept (an agent's reason); "" for a memory a person wrote. */
  reasonMd: string;
  tags: string[];
  status: MemoryStatus;
  source: MemorySource;
  createdAt: number;
  updatedAt: number;
  archivedAt: number | null;
  lastAccessedAt: number | null;
}

export interface MemoryStatusCounts {
  active: number;
  archived: number;
}

/** Counts of the visible records (GET /api/pi/memories `counts`). */
export interface MemoryCounts {
  active: number;
  archived: number;
  scopes: Record<MemoryScope, MemoryStatusCounts>;
}

/** GET /api/pi/memories. */
export interface MemoriesView {
  context: MemoryContext;
  memories: Memory[];
  counts: MemoryCounts;
}

/**
 * Typed functions for the Memory Inspector routes (spec "Memory Inspector routes") on the selected backend:
 * read the memories a folder (and session) sees, write, edit, archive or restore, and delete them. Every call
 * names the folder (`cwd`) and, when a session is open, its file (`sessionPath`); the session scope needs it.
 * Failures are ApiErrors with the server's words (400 for a refused request, 500 for a memory that is gone).
 */
import type { RouteResponse } from "../../../domain/contract/http-route.ts";
import type { createMemory as createRoute, deleteMemories as deleteRoute, listMemories } from "../../../domain/contract/http-memories.ts";
import type { Memory, MemoryScope, MemoryStatus } from "../../../domain/memories/memory-types.ts";
import { request } from "./http.ts";

export type { Memory, MemoryContext, MemoryCounts, MemoryScope, MemoryStatus } from "../../../domain/memories/memory-types.ts";

export type MemoriesView = RouteResponse<typeof listMemories>;
/** `{ ok, memory }`: the answer of a create or an edit. */
export type MemoryAnswer = RouteResponse<typeof createRoute>;
/** `{ ok, memories }`: every visible record after a status change or a deletion. */
export type MemoriesAnswer = RouteResponse<typeof deleteRoute>;

/** Where the inspector stands: a folder, and a session file when one is open. */
export interface MemoryTarget {
  readonly cwd: string;
  readonly sessionPath?: string | null;
}

const BASE = "/api/pi/memories";

function target(at: MemoryTarget): { cwd: string; sessionPath?: string } {
  return at.sessionPath ? { cwd: at.cwd, sessionPath: at.sessionPath } : { cwd: at.cwd };
}

/** GET /api/pi/memories?cwd&sessionPath */
export function fetchMemories(at: MemoryTarget, signal?: AbortSignal): Promise<MemoriesView> {
  return request<MemoriesView>("GET", BASE, { query: target(at), ...(signal ? { signal } : {}) });
}

/** POST /api/pi/memories */
export async function createMemory(
  at: MemoryTarget,
  input: { scope: MemoryScope; contentMd: string; tags: readonly string[] },
): Promise<Memory> {
  const answer = await request<MemoryAnswer>("POST", BASE, { body: { ...target(at), ...input } });
  return answer.memory;
}

/** PATCH /api/pi/memories/:id */
export async function updateMemory(at: MemoryTarget, id: string, input: { contentMd: string; tags: readonly string[] }): Promise<Memory> {
  const answer = await request<MemoryAnswer>("PATCH", `${BASE}/${encodeURIComponent(id)}`, { body: { ...target(at), ...input } });
  return answer.memory;
}

/** POST /api/pi/memories/status: archive or restore; answers every visible record. */
export async function setMemoryStatus(at: MemoryTarget, ids: readonly string[], status: MemoryStatus): Promise<Memory[]> {
  const answer = await request<MemoriesAnswer>("POST", `${BASE}/status`, { body: { ...target(at), ids, status } });
  return answer.memories;
}

/** DELETE /api/pi/memories (several, one transaction) or DELETE /api/pi/memories/:id (one). */
export async function deleteMemories(at: MemoryTarget, ids: readonly string[]): Promise<Memory[]> {
  const only = ids.length === 1 ? ids[0] : undefined;
  const answer =
    only !== undefined
      ? await request<MemoriesAnswer>("DELETE", `${BASE}/${encodeURIComponent(only)}`, { body: target(at) })
      : await request<MemoriesAnswer>("DELETE", BASE, { body: { ...target(at), ids } });
  return answer.memories;
}

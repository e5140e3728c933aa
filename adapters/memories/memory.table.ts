/**
 * The schema of memory.sqlite as Kysely sees it (created by migrations/memory/0001-memories.ts): the single
 * source of its row types. `tags` is a JSON array of strings; times are milliseconds since the epoch.
 */
import type { Selectable } from "kysely";
import type { MemoryScope, MemorySource, MemoryStatus } from "../../domain/memories/memory-types.ts";

export interface MemoryTable {
  id: string;
  scope: MemoryScope;
  project_id: string | null;
  project_root: string | null;
  project_name: string | null;
  session_id: string | null;
  session_file: string | null;
  cwd: string | null;
  content_md: string;
  reason_md: string;
  tags: string;
  status: MemoryStatus;
  source: MemorySource;
  created_at: number;
  updated_at: number;
  archived_at: number | null;
  last_accessed_at: number | null;
}

export type MemoryRow = Selectable<MemoryTable>;

export interface MemoryDatabase {
  memories: MemoryTable;
}

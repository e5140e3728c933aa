/**
 * Row types of the full-text search tables (created by migrations/0003-search-index.ts): the single source of
 * their types.
 *
 * - `search_files`: one row per indexed session file. `size`, `mtime_ms`, `ino`: its stat when last read (equal
 *   stat = nothing to read); `offset`, `fingerprint`, `decoder_state`: where reading resumes (as the projection
 *   checkpoints keep them: adapters/session-files/file-tail.ts); `session_id`, `cwd`: the header's; `format`:
 *   the indexer's SEARCH_FORMAT when the rows were made (another value: the file is indexed again).
 * - `search_docs`: one searchable document (domain/search/search-documents.ts) of a file: the session entry it
 *   came from (`entry_id`), its kind, the entry's ISO timestamp and the tool call ("" when none).
 * - `search_text`: the document's text (same `id`), apart so that the document rows stay small.
 * - `search_fts`: the FTS5 index over `search_text.text` (external content; `rowid` = the document id). Written
 *   and queried with raw statements (adapters/search/search-store.ts); typed here for completeness.
 */
import type { Insertable, Selectable } from "kysely";

export interface SearchFileTable {
  id: number;
  path: string;
  session_id: string;
  cwd: string;
  size: number;
  mtime_ms: number;
  ino: string;
  offset: number;
  fingerprint: string;
  decoder_state: string;
  format: number;
}

export interface SearchDocTable {
  id: number;
  file_id: number;
  entry_id: string;
  kind: string;
  timestamp: string;
  tool_call_id: string;
}

export interface SearchTextTable {
  id: number;
  text: string;
}

export interface SearchFtsTable {
  rowid: number;
  text: string;
}

export type SearchFileRow = Selectable<SearchFileTable>;
export type NewSearchFile = Insertable<SearchFileTable>;
export type SearchDocRow = Selectable<SearchDocTable>;

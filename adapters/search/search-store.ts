/**
 * The full-text search tables (migrations/0003-search-index.ts) as a repository: per-file checkpoints, their
 * documents in `search_docs` and the FTS5 index over them, and the ranked query.
 *
 * Statements run on leyline.sqlite's own node:sqlite connection (`sqliteConnectionOf`), prepared once, inside
 * a Kysely transaction or connection: Kysely's SQLite driver holds one connection behind a mutex, so holding it
 * keeps every other Kysely query (the session index's checkpoint writes) out of ours, and ours out of theirs.
 * Bulk writes through Kysely would prepare each statement again per call and build objects per row.
 *
 * Writes are batches of file operations, one transaction per batch: a file's checkpoint moves with its rows,
 * so an interrupted run never leaves rows the checkpoint does not account for.
 *
 * A query is one pass over the index: the most recent RECENT_MATCHES matching documents with their bm25 rank,
 * sorted best first in JS, at most `perFile` per file; then the chosen documents' rows and texts (their snippets
 * are made from the text by domain/search/search-snippet.ts).
 */
import type { Kysely } from "kysely";
import type { StatementSync } from "node:sqlite";
import type { DecoderState } from "../../domain/session-decoder.ts";
import type { SearchDocument, SearchKind } from "../../domain/search/search-documents.ts";
import type { FileStamp } from "../session-files/file-tail.ts";
import type { SessionFilePosition } from "../session-files/session-file-reader.ts";
import { sqliteConnectionOf } from "../sqlite/database.ts";
import type { SqliteConnection } from "../sqlite/sqlite-connection.ts";
import type { LeylineDatabase } from "../sqlite/leyline-database.ts";

/** What the store keeps of an indexed file without reading its decoder state. */
export interface SearchFileHead {
  readonly id: number;
  readonly path: string;
  readonly sessionId: string;
  readonly cwd: string;
  readonly stamp: FileStamp;
  readonly format: number;
}

/** One change of a file's rows, applied in order within a write. */
export type SearchFileWrite =
  /** The file is gone (or no longer a listed session): its rows and checkpoint go. */
  | { readonly kind: "drop"; readonly path: string }
  /**
   * Documents read from the file up to `position`. `restart`: they start at byte 0 (a new, rewritten or
   * replaced file, or a format change): the file's earlier rows go first.
   */
  | {
      readonly kind: "put";
      readonly path: string;
      readonly restart: boolean;
      readonly sessionId: string;
      readonly cwd: string;
      readonly position: SessionFilePosition;
      readonly format: number;
      readonly documents: readonly SearchDocument[];
    };

/** A ranked hit before it is joined with the session list. */
export interface StoredHit {
  readonly path: string;
  readonly sessionId: string;
  readonly cwd: string;
  readonly entryId: string;
  readonly kind: SearchKind;
  readonly timestamp: string;
  readonly toolCallId: string;
  /** The document's text (its snippet is made from it: domain/search/search-snippet.ts). */
  readonly text: string;
  /** bm25 rank (lower is better). */
  readonly rank: number;
}

export interface HitQuery {
  /** An FTS5 MATCH expression (domain/search/search-query.ts). */
  readonly match: string;
  readonly limit: number;
  /** Hits of one file at most (the rest of its hits are skipped). */
  readonly perFile: number;
  /**
   * Files whose hits may be answered (e.g. listed sessions of one folder); absent = all. When it leaves files
   * out, the query itself is restricted to the others (the recency bound counts their matches only).
   */
  readonly acceptFile?: (file: SearchFileHead) => boolean;
  /** Only the most recent this many matching documents are ranked (default RECENT_MATCHES). */
  readonly recentMatches?: number;
}

export interface SearchStore {
  /** Every file's head, by path. */
  loadHeads(): Promise<Map<string, SearchFileHead>>;
  /** Where reading of a file resumes, or null when unknown or unreadable (index it from byte 0). */
  loadPosition(path: string): Promise<SessionFilePosition | null>;
  /** Applies the operations in one transaction. */
  write(operations: readonly SearchFileWrite[]): Promise<void>;
  /** Removes every row (a format change: everything is indexed again). */
  clear(): Promise<void>;
  /**
   * Ranked hits (bm25; newer documents first among equal ranks), at most `perFile` per file, at most `limit`.
   * A query matching more than `recentMatches` documents ranks the most recent ones (see RECENT_MATCHES).
   */
  query(query: HitQuery): Promise<StoredHit[]>;
  /** Documents stored (for tests and the bench). */
  countDocuments(): Promise<number>;
}

/**
 * Matching documents ranked by one query at most: the most recent ones (documents are numbered in the order
 * they were indexed, oldest sessions first, appended entries later). bm25 costs time per matching document, and
 * a word found in tens of thousands of documents would take hundreds of milliseconds to rank in full; with the
 * bound it takes a few, and its best hits are among recent work.
 */
export const RECENT_MATCHES = 2_000;

interface Statements {
  readonly heads: StatementSync;
  readonly position: StatementSync;
  readonly upsertFile: StatementSync;
  readonly fileId: StatementSync;
  readonly unindexFile: StatementSync;
  readonly deleteTexts: StatementSync;
  readonly deleteDocs: StatementSync;
  readonly deleteFile: StatementSync;
  readonly insertDoc: StatementSync;
  readonly insertText: StatementSync;
  readonly indexDoc: StatementSync;
  readonly recent: StatementSync;
  readonly recentIn: StatementSync;
  readonly doc: StatementSync;
  readonly count: StatementSync;
}

function prepare(sqlite: SqliteConnection): Statements {
  const heads = sqlite.prepare("select id, path, session_id, cwd, size, mtime_ms, ino, format from search_files");
  const position = sqlite.prepare("select size, mtime_ms, ino, offset, fingerprint, decoder_state from search_files where path = ?");
  const arrays = (statement: StatementSync): StatementSync => {
    statement.setReturnArrays(true);
    return statement;
  };
  // The most recent matches (FTS5 walks its doclists by rowid, newest first), each with its file and its bm25
  // rank: one pass over the index; the ranking is sorted in JS. The `In` variant takes the allowed file ids as a
  // JSON array and counts only their matches.
  const recent = arrays(
    sqlite.prepare(
      `select s.rowid, d.file_id, bm25(search_fts) from search_fts s join search_docs d on d.id = s.rowid
       where search_fts match ? order by s.rowid desc limit ?`,
    ),
  );
  const recentIn = arrays(
    sqlite.prepare(
      `select s.rowid, d.file_id, bm25(search_fts) from search_fts s join search_docs d on d.id = s.rowid
       where search_fts match ? and d.file_id in (select value from json_each(?)) order by s.rowid desc limit ?`,
    ),
  );
  return {
    heads,
    position,
    upsertFile: sqlite.prepare(
      `insert into search_files (path, session_id, cwd, size, mtime_ms, ino, offset, fingerprint, decoder_state, format)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       on conflict (path) do update set session_id = excluded.session_id, cwd = excluded.cwd, size = excluded.size,
         mtime_ms = excluded.mtime_ms, ino = excluded.ino, offset = excluded.offset, fingerprint = excluded.fingerprint,
         decoder_state = excluded.decoder_state, format = excluded.format`,
    ),
    fileId: sqlite.prepare("select id from search_files where path = ?"),
    // External content: the index forgets a row only when told its old text.
    unindexFile: sqlite.prepare(
      `insert into search_fts (search_fts, rowid, text)
       select 'delete', t.id, t.text from search_docs d join search_text t on t.id = d.id where d.file_id = ?`,
    ),
    deleteTexts: sqlite.prepare("delete from search_text where id in (select id from search_docs where file_id = ?)"),
    deleteDocs: sqlite.prepare("delete from search_docs where file_id = ?"),
    deleteFile: sqlite.prepare("delete from search_files where id = ?"),
    insertDoc: sqlite.prepare("insert into search_docs (file_id, entry_id, kind, timestamp, tool_call_id) values (?, ?, ?, ?, ?)"),
    insertText: sqlite.prepare("insert into search_text (id, text) values (?, ?)"),
    indexDoc: sqlite.prepare("insert into search_fts (rowid, text) values (?, ?)"),
    recent,
    recentIn,
    doc: sqlite.prepare(
      "select d.entry_id, d.kind, d.timestamp, d.tool_call_id, t.text from search_docs d join search_text t on t.id = d.id where d.id = ?",
    ),
    count: sqlite.prepare("select count(*) as n from search_docs"),
  };
}

function parseDecoder(json: string): DecoderState | null {
  try {
    const value: unknown = JSON.parse(json);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as DecoderState) : null;
  } catch {
    return null;
  }
}

export function createSearchStore(db: Kysely<LeylineDatabase>): SearchStore {
  const sqlite = sqliteConnectionOf(db);
  if (sqlite === null) throw new Error("the search store needs a database opened by openLeylineDatabase");
  const statements = prepare(sqlite);
  /** Heads by file id, as the last query loaded them; dropped by every write. */
  let headsById: Map<number, SearchFileHead> | null = null;

  /** Runs `work` while holding Kysely's one connection (no other query interleaves). */
  const withConnection = <T>(work: () => T): Promise<T> => db.connection().execute(async () => work());

  const readHeads = (): SearchFileHead[] =>
    (statements.heads.all() as Record<string, unknown>[]).map((row) => ({
      id: Number(row["id"]),
      path: String(row["path"]),
      sessionId: String(row["session_id"]),
      cwd: String(row["cwd"]),
      stamp: { size: Number(row["size"]), mtimeMs: Number(row["mtime_ms"]), ino: String(row["ino"]) },
      format: Number(row["format"]),
    }));

  const dropDocs = (fileId: number): void => {
    statements.unindexFile.run(fileId);
    statements.deleteTexts.run(fileId);
    statements.deleteDocs.run(fileId);
  };

  const applyWrite = (operation: SearchFileWrite): void => {
    const existing = statements.fileId.get(operation.path) as { id: number } | undefined;
    if (operation.kind === "drop") {
      if (existing === undefined) return;
      dropDocs(existing.id);
      statements.deleteFile.run(existing.id);
      return;
    }
    if (existing !== undefined && operation.restart) dropDocs(existing.id);
    const { stamp, cursor, decoder } = operation.position;
    statements.upsertFile.run(
      operation.path,
      operation.sessionId,
      operation.cwd,
      stamp.size,
      stamp.mtimeMs,
      stamp.ino,
      cursor.offset,
      cursor.fingerprint,
      JSON.stringify(decoder),
      operation.format,
    );
    const fileId = existing?.id ?? (statements.fileId.get(operation.path) as { id: number }).id;
    for (const document of operation.documents) {
      const { lastInsertRowid: id } = statements.insertDoc.run(
        fileId,
        document.entryId,
        document.kind,
        document.timestamp,
        document.toolCallId,
      );
      statements.insertText.run(id, document.text);
      statements.indexDoc.run(id, document.text);
    }
  };

  return {
    loadHeads: () => withConnection(() => new Map(readHeads().map((head) => [head.path, head]))),
    loadPosition: (path) =>
      withConnection(() => {
        const row = statements.position.get(path) as Record<string, unknown> | undefined;
        if (row === undefined) return null;
        const decoder = parseDecoder(String(row["decoder_state"]));
        if (decoder === null) return null;
        return {
          stamp: { size: Number(row["size"]), mtimeMs: Number(row["mtime_ms"]), ino: String(row["ino"]) },
          cursor: { offset: Number(row["offset"]), fingerprint: String(row["fingerprint"]) },
          decoder,
        };
      }),
    async write(operations) {
      if (operations.length === 0) return;
      headsById = null;
      await db.transaction().execute(async () => {
        for (const operation of operations) applyWrite(operation);
      });
      // Copy the pages just written from the WAL into the database now, a batch at a time (after a turn of the
      // event loop): left to SQLite's automatic checkpoint (every 1,000 pages, 16 MB here), one commit of a long
      // build would copy them all at once and hold the event loop for ~100 ms. PASSIVE: it never waits for, nor
      // blocks, anyone.
      await new Promise<void>((resolve) => setImmediate(resolve));
      await withConnection(() => sqlite.exec("pragma wal_checkpoint(PASSIVE)"));
    },
    async clear() {
      headsById = null;
      await db.transaction().execute(async () => {
        sqlite.exec(
          "delete from search_docs; delete from search_text; delete from search_files; insert into search_fts (search_fts) values ('delete-all');",
        );
      });
    },
    query: (query) =>
      withConnection(() => {
        headsById ??= new Map(readHeads().map((head) => [head.id, head]));
        const heads = headsById;
        const accept = query.acceptFile;
        const allowed = accept === undefined ? null : [...heads.values()].filter((head) => accept(head)).map((head) => head.id);
        if (allowed !== null && allowed.length === 0) return [];
        const restricted = allowed !== null && allowed.length < heads.size ? JSON.stringify(allowed) : null;
        const bound = Math.max(1, query.recentMatches ?? RECENT_MATCHES);
        const rows = (restricted === null
          ? statements.recent.all(query.match, bound)
          : statements.recentIn.all(query.match, restricted, bound)) as unknown as [number, number, number][];
        // Best rank first; newer documents first among equals.
        rows.sort((a, b) => a[2] - b[2] || b[0] - a[0]);
        const perFile = new Map<number, number>();
        const chosen: { rowid: number; head: SearchFileHead; rank: number }[] = [];
        for (const [rowid, fileId, rank] of rows) {
          const head = heads.get(fileId);
          if (head === undefined || (accept !== undefined && !accept(head))) continue;
          const taken = perFile.get(head.id) ?? 0;
          if (taken >= query.perFile) continue;
          perFile.set(head.id, taken + 1);
          chosen.push({ rowid, head, rank });
          if (chosen.length >= query.limit) break;
        }
        const hits: StoredHit[] = [];
        for (const { rowid, head, rank } of chosen) {
          const row = statements.doc.get(rowid) as Record<string, unknown> | undefined;
          if (row === undefined) continue;
          hits.push({
            path: head.path,
            sessionId: head.sessionId,
            cwd: head.cwd,
            entryId: String(row["entry_id"]),
            kind: String(row["kind"]) as SearchKind,
            timestamp: String(row["timestamp"]),
            toolCallId: String(row["tool_call_id"]),
            text: String(row["text"]),
            rank,
          });
        }
        return hits;
      }),
    countDocuments: () => withConnection(() => Number((statements.count.get() as { n: number }).n)),
  };
}

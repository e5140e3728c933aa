/**
 * The read side as app-scoped services: leyline.sqlite (migrations run on open) and the session index over
 * pi's sessions folder. Opening starts at once and runs in the background, so the server can listen while
 * it scans; /internal/ready answers 503 until both are ready, and routes that need them wait for `ready()`.
 * Full-text search (adapters/search/search-indexer.ts) is indexed from the index's changes, starting a little
 * after the index is ready (it never delays it). `close()` (the app's onClose) closes search, the index, then
 * the database.
 */
import type { SessionSummary } from "../../domain/session-summary.ts";
import { createPiSessionIndex } from "./pi-session-index.ts";
import type { SessionIndex } from "./session-index.ts";
import { createSessionDetailFeeds, type SessionDetailFeeds } from "./session-detail-feeds.ts";
import { openLeylineDatabase, type LeylineDatabaseHandle } from "../sqlite/database.ts";
import { createSearchIndexer, type SearchIndexer } from "../search/search-indexer.ts";
import { sessionFeedback } from "../rollout-feedback/rollout-feedback-store.ts";

export interface ReadSideServices {
  readonly database: LeylineDatabaseHandle;
  readonly index: SessionIndex<SessionSummary>;
  /** Session details kept live for sockets and GET /api/pi/sessions/:id (adapters/read-side/session-detail-feeds.ts). */
  readonly details: SessionDetailFeeds;
  /** Full-text search over every listed session (adapters/search/search-indexer.ts). */
  readonly search: SearchIndexer;
}

export type ReadSidePhase = "opening-database" | "indexing" | "ready" | "failed" | "closed";

export interface ReadSide {
  phase(): ReadSidePhase;
  /** The start-up error (phase "failed"), without a stack. */
  failure(): string | null;
  /** The services once ready; rejects when start-up failed or the read side is closed. */
  ready(): Promise<ReadSideServices>;
  /**
   * leyline.sqlite once it is open and migrated, before the session index is ready (the native app's records:
   * connections, app settings, network access, pins); rejects when it failed to open or the read side closed.
   */
  database(): Promise<LeylineDatabaseHandle>;
  /** The services when ready, else null. */
  current(): ReadSideServices | null;
  close(): Promise<void>;
}

export interface ReadSideOptions {
  readonly dataDir: string;
  readonly agentDir: string;
  /** Watch the sessions folder (default true). */
  readonly watch?: boolean;
  /** Background errors of the index (they never stop it). */
  readonly onError?: (error: unknown) => void;
}

export function openReadSide(options: ReadSideOptions): ReadSide {
  let phase: ReadSidePhase = "opening-database";
  let failure: string | null = null;
  let services: ReadSideServices | null = null;
  let closing = false;
  let database: LeylineDatabaseHandle | null = null;
  let index: SessionIndex<SessionSummary> | null = null;
  let search: SearchIndexer | null = null;

  const databaseOpened = openLeylineDatabase({ dataDir: options.dataDir }).then((handle) => {
    database = handle;
    if (closing) throw new Error("The read side was closed while it opened");
    return handle;
  });
  databaseOpened.catch(() => undefined);
  const opened = (async (): Promise<ReadSideServices> => {
    database = await databaseOpened;
    phase = "indexing";
    index = createPiSessionIndex({
      db: database.db,
      agentDir: options.agentDir,
      watch: options.watch ?? true,
      ...(options.onError !== undefined ? { onError: options.onError } : {}),
    });
    await index.ready;
    if (closing) throw new Error("The read side was closed while it opened");
    search = createSearchIndexer({
      db: database.db,
      index,
      ...(options.onError !== undefined ? { onError: options.onError } : {}),
    });
    search.start();
    const db = database.db;
    // Rollout feedback lives in leyline.sqlite; the detail worker overlays it on the entries it serves.
    const details = createSessionDetailFeeds({ loadFeedback: (sessionId) => sessionFeedback(db, sessionId) });
    services = { database, index, details, search };
    phase = "ready";
    return services;
  })();
  opened.catch((error: unknown) => {
    if (closing) return;
    phase = "failed";
    failure = error instanceof Error ? error.message : String(error);
    options.onError?.(error);
  });

  return {
    phase: () => phase,
    failure: () => failure,
    ready: () => opened,
    database: () => (closing ? Promise.reject(new Error("The read side is closed")) : databaseOpened),
    current: () => services,
    async close() {
      if (closing) return;
      closing = true;
      await opened.catch(() => undefined);
      phase = "closed";
      services?.details.close();
      services = null;
      const openSearch = search as SearchIndexer | null;
      if (openSearch !== null) await openSearch.close();
      const openIndex = index as SessionIndex<SessionSummary> | null;
      const openDatabase = database as LeylineDatabaseHandle | null;
      if (openIndex !== null) await openIndex.close();
      if (openDatabase !== null) await openDatabase.close();
    },
  };
}
